// geometry: STL surfaces (src/geometry/stl.hpp) and HDF5 voxel masks (io/hdf5/mask.hpp) as Shapes.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "geometry/predicates.hpp"
#include "geometry/stl.hpp"
#include "io/hdf5/block.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/mask.hpp"
#include "parallel/comm.hpp"
#include "tests/support/temp_dir.hpp"

using eddy::index_t;
using eddy::InputError;
using eddy::Int3;
using eddy::Real3;
using eddy::geometry::load_stl;
using eddy::geometry::read_stl;
using eddy::geometry::Shape;
using eddy::geometry::StlPlacement;
using eddy::geometry::Triangle;

namespace {

const std::string sphere_stl = std::string(EDDY_SOURCE_DIR) + "/cases/sphere/sphere.stl";

/// A fresh directory per test, removed afterwards.
struct TempDir : eddy::test::TempDir {
  TempDir() : eddy::test::TempDir("eddy_geom_") {}
};

/// The unit cube [0, 1]^3: 12 facets, counter-clockwise seen from outside, each face split along a
/// diagonal (so rays and segments through face centres hit a shared edge).
std::vector<Triangle> unit_cube() {
  auto corner = [](int c) { return Real3{double(c & 1), double((c >> 1) & 1), double((c >> 2) & 1)}; };
  // Faces as corner quads (counter-clockwise from outside), corner index = x + 2y + 4z.
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  std::vector<Triangle> t;
  for (const auto& q : quads) {
    t.push_back({corner(q[0]), corner(q[1]), corner(q[2])});
    t.push_back({corner(q[0]), corner(q[2]), corner(q[3])});
  }
  return t;
}

void write_ascii(const std::string& path, const std::vector<Triangle>& tris) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fprintf(f, "solid test body\n");
  for (const Triangle& t : tris) {
    std::fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
    // %.17g: the digits that read back to the same double
    for (const Real3& v : t) std::fprintf(f, "      vertex %.17g %.17g %.17g\n", v[0], v[1], v[2]);
    std::fprintf(f, "    endloop\n  endfacet\n");
  }
  std::fprintf(f, "endsolid test body\n");
  std::fclose(f);
}

void write_binary(const std::string& path, const std::vector<Triangle>& tris, const std::string& header) {
  std::string out = header;
  out.resize(80, ' ');
  auto put32 = [&](std::uint32_t u) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xff));
  };
  auto put_float = [&](double v) {
    const float f = static_cast<float>(v);
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    put32(u);
  };
  put32(static_cast<std::uint32_t>(tris.size()));
  for (const Triangle& t : tris) {
    for (int c = 0; c < 3; ++c) put_float(0.0);
    for (const Real3& v : t)
      for (double c : v) put_float(c);
    out.push_back('\0');
    out.push_back('\0');
  }
  std::ofstream(path, std::ios::binary) << out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

Real3 lerp(const Real3& a, const Real3& b, double t) {
  return {a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])};
}

double dist(const Real3& a, const Real3& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

/// The radii of the spheres about `c` that a convex polyhedron lies between: the nearest facet plane
/// (inscribed) and the farthest vertex (circumscribed).
std::pair<double, double> in_and_circumradius(const std::vector<Triangle>& tris, const Real3& c) {
  double rin = HUGE_VAL, rout = 0.0;
  for (const Triangle& t : tris) {
    const Real3 e1{t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]};
    const Real3 e2{t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]};
    const Real3 n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
    const double ln = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    rin = std::min(
        rin, std::fabs(n[0] * (t[0][0] - c[0]) + n[1] * (t[0][1] - c[1]) + n[2] * (t[0][2] - c[2])) / ln);
    for (const Real3& v : t) rout = std::max(rout, dist(v, c));
  }
  return {rin, rout};
}

}  // namespace

// --------------------------------------------------------------------------------- predicates

// Kettner et al. (2008), "Classroom examples of robustness problems in geometric computations":
// p = (0.5 + i u, 0.5 + j u), u = 2^-53, against q = (12, 12), r = (24, 24). Exactly,
// det[p - r, q - r] = 12 u (j - i), so the sign is that of j - i; the plain double formula gets a
// scattered part of this 256 x 256 grid wrong (printed), the predicate none.
TEST(Predicates, Orient2dIsExactWhereDoublesFail) {
  const double u = std::ldexp(1.0, -53);
  int wrong = 0, naive_wrong = 0;
  for (int j = 0; j < 256; ++j)
    for (int i = 0; i < 256; ++i) {
      const double px = 0.5 + i * u, py = 0.5 + j * u;
      const int exact = (j > i) - (j < i);
      wrong += eddy::geometry::orient2d(px, py, 12, 12, 24, 24) != exact;
      const double naive = (px - 24) * (12 - 24) - (py - 24) * (12 - 24);
      naive_wrong += ((naive > 0) - (naive < 0)) != exact;
      // the same three points in the other cyclic orders
      wrong += eddy::geometry::orient2d(12, 12, 24, 24, px, py) != exact;
      wrong += eddy::geometry::orient2d(24, 24, px, py, 12, 12) != exact;
    }
  EXPECT_EQ(wrong, 0);
  std::printf("[ orient2d ] plain doubles: %d of 65536 signs wrong; the predicate: %d\n", naive_wrong, wrong);
}

// --------------------------------------------------------------------------------------- sphere

// The icosphere is convex and lies between its inscribed ball (radius of the nearest facet plane) and
// its circumscribed one (farthest vertex). So every cell centre nearer the centre than r_in must be
// inside and every one farther than r_out outside, whatever the rays cross on the way: an exact test
// at each of the 64^3 cell centres, shell points within 1e-9 of either sphere excepted (none occur in
// practice). The volume bound then follows: the voxel count lies between the lattice counts of the two
// balls, and |N dx^3 - 4/3 pi r^3| <= 4/3 pi (r^3 - r_in^3) + (count of the shell |p| in
// [r_in - s, r_out + s], s = dx sqrt(3)/2, times dx^3), the second term bounding the lattice error of
// a body whose surface lies in that shell.
TEST(StlSphere, CellCentresInsideLieBetweenTheInscribedAndCircumscribedBalls) {
  for (const auto& [scale, c] : {std::pair<double, Real3>{1.0, {0.5, 0.5, 0.5}},
                                 std::pair<double, Real3>{0.8, {0.4871, 0.5213, 0.4566}}}) {
    const StlPlacement place{scale, c};
    const auto tris = read_stl(sphere_stl, place);
    ASSERT_EQ(tris.size(), 5120U);
    const auto [rin, rout] = in_and_circumradius(tris, c);
    const double r = 0.5 * scale;
    EXPECT_LT(rin, r);
    EXPECT_NEAR(rout, r, 1e-7 * r);  // float32 vertices
    const auto body = load_stl(sphere_stl, place);
    const int n = 64;
    const double dx = 1.0 / n, s = dx * std::sqrt(3.0) / 2;
    index_t count = 0, shell = 0, wrong = 0;
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const Real3 p{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
          const double rp = dist(p, c);
          const bool in = body->inside(p);
          count += in;
          if ((rp < rin - 1e-9 && !in) || (rp > rout + 1e-9 && in)) ++wrong;
          if (rp >= rin - s && rp <= rout + s) ++shell;
        }
    EXPECT_EQ(wrong, 0) << "scale " << scale;
    const double v_sphere = 4.0 / 3.0 * M_PI * r * r * r;
    const double bound = 4.0 / 3.0 * M_PI * (r * r * r - rin * rin * rin) + shell * dx * dx * dx;
    const double v_voxels = count * dx * dx * dx;
    EXPECT_LE(std::fabs(v_voxels - v_sphere), bound) << "scale " << scale;
    std::printf(
        "[ sphere   ] scale %.2f: %ld of %d^3 cells, volume %.5f vs 4/3 pi r^3 = %.5f (%.2f%%), bound %.5f\n",
        scale, static_cast<long>(count), n, v_voxels, v_sphere, 100 * (v_voxels / v_sphere - 1), bound);
  }
}

// Links from outside to inside: the crossing point lies on the polyhedron, so between the two balls,
// and on the segment; the points just before and after it are outside and inside.
TEST(StlSphere, CrossingPointsLieOnTheSurface) {
  const Real3 c{0.5, 0.5, 0.5};
  const auto tris = read_stl(sphere_stl, {1.0, c});
  const auto [rin, rout] = in_and_circumradius(tris, c);
  const auto body = load_stl(sphere_stl, {1.0, c});
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (int n = 0; n < 4000; ++n) {
    // a in the shell just outside, b a short link away (up to the D3Q27 diagonal of dx = 1/32)
    const Real3 a{c[0] + 0.55 * u(rng), c[1] + 0.55 * u(rng), c[2] + 0.55 * u(rng)};
    const Real3 b{a[0] + u(rng) / 32, a[1] + u(rng) / 32, a[2] + u(rng) / 32};
    if (body->inside(a) || !body->inside(b)) continue;
    ++checked;
    const double t = body->crossing(a, b);
    ASSERT_GE(t, 0.0);
    ASSERT_LE(t, 1.0);
    const double rq = dist(lerp(a, b, t), c);
    EXPECT_GE(rq, rin - 1e-12);
    EXPECT_LE(rq, rout + 1e-12);
    // 1e-9 of the way off the crossing the answer is clear (the next facet is ~0.03 away)
    if (t > 1e-9) EXPECT_FALSE(body->inside(lerp(a, b, t - 1e-9)));
    if (t < 1 - 1e-9) EXPECT_TRUE(body->inside(lerp(a, b, t + 1e-9)));
  }
  EXPECT_GT(checked, 50);
}

// ----------------------------------------------------------------------------------------- cube

// The unit cube with its faces split along diagonals: inside() at cell centres that sit exactly on
// face diagonals (rays through shared edges and vertices) and crossing() against the analytic slab
// intersection t = max over axes of the entering fraction. Double arithmetic on these coordinates is
// exact to a few ulp, so 1e-12 is a tolerance of rounding only.
TEST(StlCube, InsideAndCrossingMatchTheAnalyticBox) {
  TempDir dir;
  write_ascii(dir / "cube.stl", unit_cube());
  const Real3 lo{-0.25, 0.125, 0.5};  // the cube moved to [lo, lo + 2]
  const auto body = load_stl(dir / "cube.stl", {2.0, lo});
  const auto box = body->bounds();
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(box.lo[d], lo[d]);
    EXPECT_EQ(box.hi[d], lo[d] + 2.0);
  }
  auto in_box = [&](const Real3& p) {
    for (int d = 0; d < 3; ++d)
      if (!(p[d] > lo[d] && p[d] < lo[d] + 2.0)) return false;
    return true;
  };
  // dx = 1/8 from -0.75: centres at lo + (m + 1/2)/8 fall on the face diagonals x = y etc.
  int mismatched = 0, n_in = 0;
  for (int k = 0; k < 32; ++k)
    for (int j = 0; j < 32; ++j)
      for (int i = 0; i < 32; ++i) {
        const Real3 p{-0.75 + (i + 0.5) / 8, -0.375 + (j + 0.5) / 8, (k + 0.5) / 8};
        n_in += in_box(p);
        mismatched += body->inside(p) != in_box(p);
      }
  EXPECT_EQ(mismatched, 0);
  EXPECT_EQ(n_in, 16 * 16 * 16);

  auto slab_t = [&](const Real3& a, const Real3& b) {
    double t = 0.0;
    for (int d = 0; d < 3; ++d) {
      const double face = a[d] < lo[d] ? lo[d] : a[d] > lo[d] + 2 ? lo[d] + 2 : NAN;
      if (!std::isnan(face)) t = std::max(t, (face - a[d]) / (b[d] - a[d]));
    }
    return t;
  };
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-0.5, 2.5);
  int checked = 0;
  for (int n = 0; n < 3000; ++n) {
    const Real3 a{lo[0] + u(rng), lo[1] + u(rng), lo[2] + u(rng)};
    const Real3 b{lo[0] + 0.5 + 0.5 * u(rng), lo[1] + 0.5 + 0.5 * u(rng), lo[2] + 0.5 + 0.5 * u(rng)};
    if (in_box(a) || !in_box(b)) continue;
    ++checked;
    EXPECT_NEAR(body->crossing(a, b), slab_t(a, b), 1e-12);
  }
  EXPECT_GT(checked, 1000);
  // Through a face's diagonal, a cube edge and a cube corner (the shared edges of the facets).
  const Real3 mid{lo[0] + 1, lo[1] + 1, lo[2] + 1};
  for (const Real3& a : {Real3{lo[0] - 1, lo[1] + 1, lo[2] + 1}, Real3{lo[0] - 1, lo[1] + 0.5, lo[2] + 0.5},
                         Real3{lo[0] - 1, lo[1] - 1, lo[2] + 1}, Real3{lo[0] - 1, lo[1] - 1, lo[2] - 1}}) {
    EXPECT_NEAR(body->crossing(a, mid), 0.5, 1e-12);
  }
}

// A non-convex body by parity: a hollow cube (outer [0, 3]^3, a cavity [1, 2]^3 whose facets face
// into the cavity) and a separate cube [4, 5] x [0, 1] x [0, 1], one file. Rays from the cavity cross
// two walls, rays from the wall three; the answer must follow the analytic sets everywhere, and a
// link from the cavity into the wall must enter at the cavity's face.
TEST(StlCube, HollowAndSeparateBodiesByParity) {
  TempDir dir;
  std::vector<Triangle> tris;
  auto add_cube = [&](double lo, double size, Real3 shift, bool inward) {
    for (Triangle t : unit_cube()) {
      for (Real3& v : t)
        for (int d = 0; d < 3; ++d) v[d] = lo + size * v[d] + shift[d];
      if (inward) std::swap(t[1], t[2]);
      tris.push_back(t);
    }
  };
  add_cube(0.0, 3.0, {0, 0, 0}, false);
  add_cube(1.0, 1.0, {0, 0, 0}, true);
  add_cube(0.0, 1.0, {4, 0, 0}, false);
  write_binary(dir / "hollow.stl", tris, "hollow cube and a separate one");
  const auto body = load_stl(dir / "hollow.stl");
  auto in_open_box = [](const Real3& p, const Real3& lo, const Real3& hi) {
    return p[0] > lo[0] && p[0] < hi[0] && p[1] > lo[1] && p[1] < hi[1] && p[2] > lo[2] && p[2] < hi[2];
  };
  auto solid = [&](const Real3& p) {
    return (in_open_box(p, {0, 0, 0}, {3, 3, 3}) && !in_open_box(p, {1, 1, 1}, {2, 2, 2})) ||
           in_open_box(p, {4, 0, 0}, {5, 1, 1});
  };
  int mismatched = 0, n_solid = 0;
  for (int k = 0; k < 14; ++k)
    for (int j = 0; j < 14; ++j)
      for (int i = 0; i < 24; ++i) {
        const Real3 p{-0.375 + i * 0.25, -0.375 + j * 0.25, -0.375 + k * 0.25};  // never on a face
        n_solid += solid(p);
        mismatched += body->inside(p) != solid(p);
      }
  EXPECT_EQ(mismatched, 0);
  EXPECT_EQ(n_solid, 12 * 12 * 12 - 4 * 4 * 4 + 4 * 4 * 4);
  EXPECT_NEAR(body->crossing({1.5, 1.25, 1.75}, {0.5, 1.25, 1.75}), 0.5, 1e-12);  // cavity -> wall
  EXPECT_NEAR(body->crossing({3.5, 0.5, 0.5}, {4.5, 0.5, 0.5}), 0.5, 1e-12);      // gap -> second cube

  // Two cubes that touch along an edge: four facets share it, two running each way. The surface is
  // closed (its directed edges cancel), so it is accepted and parity holds on both sides.
  tris.clear();
  add_cube(0.0, 1.0, {0, 0, 0}, false);
  add_cube(0.0, 1.0, {1, 1, 0}, false);
  write_ascii(dir / "touching.stl", tris);
  const auto pair = load_stl(dir / "touching.stl");
  EXPECT_TRUE(pair->inside({0.5, 0.5, 0.5}));
  EXPECT_TRUE(pair->inside({1.5, 1.5, 0.5}));
  EXPECT_FALSE(pair->inside({1.5, 0.5, 0.5}));
  EXPECT_FALSE(pair->inside({0.5, 1.5, 0.5}));
  EXPECT_NE(pair->describe().find("volume 2)"), std::string::npos) << pair->describe();
}

// Two closed shells that overlap: the cubes [0, 1]^3 and [0.5, 1.5] x [0, 1] x [0, 1] in one file, each
// closed and facing outward. The overlap lies inside both (winding number 2) and is solid; a ray from it
// crosses two facets, so parity alone would call it fluid.
TEST(StlCube, OverlappingShellsAreSolidWhereTheyOverlap) {
  TempDir dir;
  std::vector<Triangle> tris;
  for (double shift : {0.0, 0.5})
    for (Triangle t : unit_cube()) {
      for (Real3& v : t) v[0] += shift;
      tris.push_back(t);
    }
  write_ascii(dir / "overlap.stl", tris);
  const auto body = load_stl(dir / "overlap.stl");
  int mismatched = 0;
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 16; ++i) {
        const Real3 p{-0.21875 + i * 0.125, -0.4375 + j * 0.25, -0.4375 + k * 0.25};  // never on a face
        const bool solid = p[0] > 0 && p[0] < 1.5 && p[1] > 0 && p[1] < 1 && p[2] > 0 && p[2] < 1;
        mismatched += body->inside(p) != solid;
      }
  EXPECT_EQ(mismatched, 0);
  EXPECT_TRUE(body->inside({0.75, 0.5, 0.5}));
}

// The octahedron |x| + |y| + |z| < 1: four facets meet at each vertex and the projected edges lie
// on the axes, so on a lattice of quarter steps most rays run exactly through vertices and along
// edges. Each must still count one crossing per passage through the surface (points on the surface,
// |x| + |y| + |z| = 1, are left out: either answer is allowed there).
TEST(StlOctahedron, RaysThroughVerticesAndEdgesCountOnce) {
  TempDir dir;
  std::vector<Triangle> tris;
  for (int sx = -1; sx <= 1; sx += 2)
    for (int sy = -1; sy <= 1; sy += 2)
      for (int sz = -1; sz <= 1; sz += 2) {
        Triangle t{Real3{double(sx), 0, 0}, Real3{0, double(sy), 0}, Real3{0, 0, double(sz)}};
        if (sx * sy * sz < 0) std::swap(t[1], t[2]);  // counter-clockwise seen from outside
        tris.push_back(t);
      }
  write_ascii(dir / "octahedron.stl", tris);
  for (const double scale : {1.0, 1.0 / 3.0}) {
    const auto body = load_stl(dir / "octahedron.stl", {scale, {0, 0, 0}});
    int checked = 0, mismatched = 0;
    for (int k = -6; k <= 6; ++k)
      for (int j = -6; j <= 6; ++j)
        for (int i = -6; i <= 6; ++i) {
          const Real3 p{i * 0.25 * scale, j * 0.25 * scale, k * 0.25 * scale};
          const int l1 = std::abs(i) + std::abs(j) + std::abs(k);  // |p|_1 = l1 / 4 (times scale)
          if (l1 == 4) continue;
          ++checked;
          mismatched += body->inside(p) != (l1 < 4);
        }
    EXPECT_EQ(mismatched, 0) << "scale " << scale;
    EXPECT_EQ(checked, 13 * 13 * 13 - 66) << "scale " << scale;  // 66 lattice points lie on the surface
    // A link straight at a vertex, and one through the middle of an edge (two facets meet there).
    EXPECT_NEAR(body->crossing({0, 0, 2 * scale}, {0, 0, 0.5 * scale}), 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(body->crossing({scale, scale, 0}, {0, 0, 0}), 0.5, 1e-12);
  }
}

// ------------------------------------------------------------------------------- file formats

TEST(StlLoad, BinaryAndAsciiGiveTheSameShape) {
  TempDir dir;
  const auto tris = read_stl(sphere_stl);
  write_ascii(dir / "sphere_ascii.stl", tris);
  EXPECT_EQ(read_stl(dir / "sphere_ascii.stl"), tris);  // %.17g reads back the same values
  // A binary file whose header starts with "solid" (as many exporters write) is still binary.
  write_binary(dir / "cube_solid_header.stl", unit_cube(), "solid cube, binary");
  write_ascii(dir / "cube.stl", unit_cube());
  EXPECT_EQ(read_stl(dir / "cube_solid_header.stl"), unit_cube());
  EXPECT_EQ(read_stl(dir / "cube.stl"), unit_cube());
  // Windows line ends and upper-case keywords read the same.
  std::ifstream cube_in(dir / "cube.stl");
  std::string crlf;
  for (std::string line; std::getline(cube_in, line);) {
    for (const char* w :
         {"solid", "facet", "normal", "outer", "loop", "vertex", "endloop", "endfacet", "endsolid"}) {
      const size_t at = line.find(w);
      if (at != std::string::npos && line.compare(at, std::strlen(w), w) == 0 &&
          (at == 0 || line[at - 1] == ' '))
        for (size_t c = at; c < at + std::strlen(w); ++c) line[c] = static_cast<char>(std::toupper(line[c]));
    }
    crlf += line + "\r\n";
  }
  std::ofstream(dir / "cube_crlf.stl", std::ios::binary) << crlf;
  EXPECT_EQ(read_stl(dir / "cube_crlf.stl"), unit_cube());

  const StlPlacement place{0.9, {0.51, 0.47, 0.5}};
  const auto bin = load_stl(sphere_stl, place);
  const auto asc = load_stl(dir / "sphere_ascii.stl", place);
  int n_in = 0;
  for (int k = 0; k < 24; ++k)
    for (int j = 0; j < 24; ++j)
      for (int i = 0; i < 24; ++i) {
        const Real3 p{(i + 0.5) / 24, (j + 0.5) / 24, (k + 0.5) / 24};
        const bool in = bin->inside(p);
        n_in += in;
        ASSERT_EQ(in, asc->inside(p));
        const Real3 q{p[0] - 1.0 / 24, p[1] + 1.0 / 24, p[2]};
        if (in && !bin->inside(q)) ASSERT_EQ(bin->crossing(q, p), asc->crossing(q, p));
      }
  EXPECT_GT(n_in, 0);
  EXPECT_NE(bin->describe().find("5120 facets"), std::string::npos) << bin->describe();
}

// An inside-out file (every facet clockwise from outside) describes the same solid.
TEST(StlLoad, InsideOutFileIsTurnedOutward) {
  TempDir dir;
  auto tris = unit_cube();
  for (Triangle& t : tris) std::swap(t[1], t[2]);
  write_ascii(dir / "inverted.stl", tris);
  const auto body = load_stl(dir / "inverted.stl");
  EXPECT_TRUE(body->inside({0.5, 0.25, 0.75}));
  EXPECT_FALSE(body->inside({1.5, 0.25, 0.75}));
  EXPECT_NEAR(body->crossing({-1, 0.5, 0.5}, {0.5, 0.5, 0.5}), 2.0 / 3.0, 1e-12);
  EXPECT_NE(body->describe().find("volume 1)"), std::string::npos) << body->describe();
}

TEST(StlLoad, NotWatertightIsAnInputErrorNamingTheEdges) {
  TempDir dir;
  // One facet missing: its three edges are open.
  auto open = unit_cube();
  open.pop_back();
  write_ascii(dir / "open.stl", open);
  std::string e = error_of([&] { load_stl(dir / "open.stl"); });
  EXPECT_NE(e.find("open.stl' is not watertight"), std::string::npos) << e;
  EXPECT_NE(e.find("3 open edges"), std::string::npos) << e;
  EXPECT_NE(e.find("first from ("), std::string::npos) << e;
  // One facet flipped: its three edges are traversed twice the same way.
  auto flipped = unit_cube();
  std::swap(flipped[4][1], flipped[4][2]);
  write_binary(dir / "flipped.stl", flipped, "flipped");
  e = error_of([&] { load_stl(dir / "flipped.stl"); });
  EXPECT_NE(e.find("not watertight: 3 edges whose facets run the same way"), std::string::npos) << e;
  // A hole closed by a facet that is slightly off the vertices (1e-3, far above the weld tolerance).
  auto gap = unit_cube();
  gap[0][0][0] += 1e-3;
  write_ascii(dir / "gap.stl", gap);
  e = error_of([&] { load_stl(dir / "gap.stl"); });
  EXPECT_NE(e.find("open edges"), std::string::npos) << e;
  // The same offset below the weld tolerance (1e-7 of the diagonal) is welded shut.
  auto near = unit_cube();
  near[0][0][0] += 1e-9;
  write_ascii(dir / "near.stl", near);
  EXPECT_NO_THROW(load_stl(dir / "near.stl"));
  // The shipped non-watertight example (tests/data): a cube with one face missing.
  e = error_of([&] { load_stl(std::string(EDDY_SOURCE_DIR) + "/tests/data/open_box.stl"); });
  EXPECT_NE(e.find("open_box.stl' is not watertight: 4 open edges"), std::string::npos) << e;
}

TEST(StlLoad, BrokenFilesAreInputErrors) {
  TempDir dir;
  std::string e = error_of([&] { load_stl(dir / "missing.stl"); });
  EXPECT_NE(e.find("missing.stl': no such file"), std::string::npos) << e;

  std::ifstream in(sphere_stl, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "truncated.stl", std::ios::binary) << bytes.substr(0, bytes.size() - 10);
  e = error_of([&] { load_stl(dir / "truncated.stl"); });
  EXPECT_NE(e.find("header counts 5120 facets, which take 256084 bytes, but the file has 256074 (truncated)"),
            std::string::npos)
      << e;

  write_ascii(dir / "ascii.stl", unit_cube());
  std::ifstream ain(dir / "ascii.stl");
  std::string text((std::istreambuf_iterator<char>(ain)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "ascii_cut.stl") << text.substr(0, text.find("endloop", text.size() / 2));
  e = error_of([&] { load_stl(dir / "ascii_cut.stl"); });
  EXPECT_NE(e.find("ascii_cut.stl', line"), std::string::npos) << e;
  EXPECT_NE(e.find("(truncated?)"), std::string::npos) << e;

  std::ofstream(dir / "quad.stl") << "solid q\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                     "vertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid q\n";
  e = error_of([&] { load_stl(dir / "quad.stl"); });
  EXPECT_NE(e.find("line 8: a facet with 4 vertices"), std::string::npos) << e;

  std::ofstream(dir / "word.stl") << "solid q\nfacet normal 0 0 1\nouter loop\nvertex 0 zero 0\n";
  e = error_of([&] { load_stl(dir / "word.stl"); });
  EXPECT_NE(e.find("line 4: expected a number, found 'zero'"), std::string::npos) << e;

  std::ofstream(dir / "short.stl") << "not an stl";
  e = error_of([&] { load_stl(dir / "short.stl"); });
  EXPECT_NE(e.find("is not an STL file"), std::string::npos) << e;

  std::ofstream(dir / "empty.stl") << "solid nothing\nendsolid nothing\n";
  e = error_of([&] { load_stl(dir / "empty.stl"); });
  EXPECT_NE(e.find("has no facets"), std::string::npos) << e;

  // Degenerate: every facet flat in one plane (a closed double-sided sheet) encloses nothing.
  std::vector<Triangle> sheet{{Real3{0, 0, 0}, Real3{1, 0, 0}, Real3{0, 1, 0}},
                              {Real3{0, 0, 0}, Real3{0, 1, 0}, Real3{1, 0, 0}}};
  write_ascii(dir / "sheet.stl", sheet);
  e = error_of([&] { load_stl(dir / "sheet.stl"); });
  EXPECT_NE(e.find("encloses no volume"), std::string::npos) << e;

  e = error_of([&] { load_stl(sphere_stl, {0.0, {0, 0, 0}}); });
  EXPECT_NE(e.find("scale must be a positive number"), std::string::npos) << e;
}

// ------------------------------------------------------------------------------ decomposition

// The LBM voxelises each rank's box (plus its ghost layer) separately: a 2x2x1 split of a 40x36x24
// grid must mark the same cells, and give the same link fractions, as the whole grid at once.
TEST(StlDecomposition, PerRankBoxesVoxeliseLikeTheWholeGrid) {
  const Int3 n{40, 36, 24};
  const double dx = 1.0 / 32;
  const auto body = load_stl(sphere_stl, {0.6, {0.61, 0.55, 0.37}});
  auto centre = [&](index_t i, index_t j, index_t k) {
    return Real3{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
  };
  auto at = [&](index_t i, index_t j, index_t k) { return static_cast<size_t>((k * n[1] + j) * n[0] + i); };
  std::vector<char> whole(static_cast<size_t>(n[0] * n[1] * n[2]));
  for (index_t k = 0; k < n[2]; ++k)
    for (index_t j = 0; j < n[1]; ++j)
      for (index_t i = 0; i < n[0]; ++i) whole[at(i, j, k)] = body->inside(centre(i, j, k));

  std::vector<char> assembled(whole.size(), 2);
  const index_t cut_x[] = {0, 17, n[0]}, cut_y[] = {0, 20, n[1]};
  index_t links = 0;
  for (int ry = 0; ry < 2; ++ry)
    for (int rx = 0; rx < 2; ++rx) {
      // This rank's box with one ghost layer: it asks the body about its own cells and ghosts.
      const auto local_body = load_stl(sphere_stl, {0.6, {0.61, 0.55, 0.37}});
      const Shape& local = *local_body;
      for (index_t k = 0; k < n[2]; ++k)
        for (index_t j = cut_y[ry]; j < cut_y[ry + 1]; ++j)
          for (index_t i = cut_x[rx]; i < cut_x[rx + 1]; ++i) {
            const bool in = local.inside(centre(i, j, k));
            assembled[at(i, j, k)] = in;
            if (in) continue;
            for (int d = 0; d < 3; ++d)
              for (int sgn = -1; sgn <= 1; sgn += 2) {
                Int3 m{i, j, k};
                m[static_cast<size_t>(d)] += sgn;  // a neighbour, possibly in a ghost layer
                if (m[0] < 0 || m[1] < 0 || m[2] < 0 || m[0] >= n[0] || m[1] >= n[1] || m[2] >= n[2])
                  continue;
                if (!local.inside(centre(m[0], m[1], m[2]))) continue;
                ASSERT_TRUE(whole[at(m[0], m[1], m[2])]);
                ++links;
                const double t_local = local.crossing(centre(i, j, k), centre(m[0], m[1], m[2]));
                ASSERT_EQ(t_local, body->crossing(centre(i, j, k), centre(m[0], m[1], m[2])));
              }
          }
    }
  EXPECT_EQ(assembled, whole);
  EXPECT_GT(links, 500);
}

// ------------------------------------------------------------------------------------ HDF5 masks

namespace {

eddy::parallel::Comm self() { return eddy::parallel::Comm(MPI_COMM_SELF); }

template <class T>
void write_mask(const std::string& path, const std::string& name, int dims, Int3 cells,
                const std::vector<T>& v) {
  auto f = eddy::io::FieldFile::create(path, eddy::io::Block::whole(dims, cells), self());
  f.write_scalar(name, v.data());
  f.commit();
}

}  // namespace

TEST(Mask, RoundTripThroughEddysFieldWriter) {
  TempDir dir;
  const Int3 n{12, 10, 7};
  const double dx = 0.25;
  std::vector<std::uint8_t> v(static_cast<size_t>(n[0] * n[1] * n[2]), 0);
  auto at = [&](index_t i, index_t j, index_t k) { return static_cast<size_t>((k * n[1] + j) * n[0] + i); };
  // An L-shaped solid over cells x 3..8, y 2..6, z 1..4, and a value other than 1.
  for (index_t k = 1; k <= 4; ++k)
    for (index_t j = 2; j <= 6; ++j)
      for (index_t i = 3; i <= 8; ++i)
        if (i <= 5 || j <= 3) v[at(i, j, k)] = 1;
  v[at(8, 2, 4)] = 200;
  write_mask(dir / "mask.h5", "solid", 3, n, v);
  const auto body = eddy::io::read_mask(dir / "mask.h5", "solid", 3, n, dx);
  for (index_t k = 0; k < n[2]; ++k)
    for (index_t j = 0; j < n[1]; ++j)
      for (index_t i = 0; i < n[0]; ++i) {
        const Real3 p{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
        ASSERT_EQ(body->inside(p), v[at(i, j, k)] != 0) << i << " " << j << " " << k;
        // anywhere in the cell's box [i dx, (i+1) dx)
        ASSERT_EQ(body->inside({i * dx, (j + 0.99) * dx, (k + 0.01) * dx}), v[at(i, j, k)] != 0);
      }
  EXPECT_FALSE(body->inside({-0.01, 0.6, 0.3}));
  EXPECT_FALSE(body->inside({1.0, 0.6, n[2] * dx}));
  EXPECT_EQ(body->crossing({0.0, 0.0, 0.0}, {1.0, 0.6, 0.3}), -1.0);
  const auto box = body->bounds();
  const Real3 lo{3 * dx, 2 * dx, 1 * dx}, hi{9 * dx, 7 * dx, 5 * dx};
  EXPECT_EQ(box.lo, lo);
  EXPECT_EQ(box.hi, hi);

  // 2D: dataset (ny, nx); z is ignored. Any integer type counts nonzero values, negative ones too.
  std::vector<std::int32_t> w(12 * 10, 0);
  w[3 * 12 + 4] = -1;
  w[9 * 12 + 11] = 7;
  write_mask(dir / "mask2d.h5", "m", 2, {12, 10, 1}, w);
  const auto flat = eddy::io::read_mask(dir / "mask2d.h5", "m", 2, {12, 10, 1}, 0.1);
  int n_in = 0;
  for (int j = 0; j < 10; ++j)
    for (int i = 0; i < 12; ++i) n_in += flat->inside({(i + 0.5) * 0.1, (j + 0.5) * 0.1, 0.05});
  EXPECT_EQ(n_in, 2);
  EXPECT_TRUE(flat->inside({0.45, 0.35, 123.0}));
  EXPECT_TRUE(flat->inside({1.15, 0.95, 0.0}));
}

TEST(Mask, WrongShapeTypeOrDatasetIsAnInputError) {
  TempDir dir;
  const Int3 n{12, 10, 7};
  write_mask(dir / "mask.h5", "solid", 3, n, std::vector<std::uint8_t>(12 * 10 * 7, 1));
  write_mask(dir / "real.h5", "solid", 3, n, std::vector<double>(12 * 10 * 7, 1.0));
  std::string e = error_of([&] { eddy::io::read_mask(dir / "mask.h5", "solid", 3, {10, 12, 7}, 0.1); });
  EXPECT_NE(e.find("mask dataset 'solid' of HDF5 file '" + dir / "mask.h5" +
                   "' has shape [7, 10, 12], the grid is [7, 12, 10] (nz, ny, nx)"),
            std::string::npos)
      << e;
  e = error_of([&] { eddy::io::read_mask(dir / "mask.h5", "solid", 2, {12, 10, 1}, 0.1); });
  EXPECT_NE(e.find("has shape [7, 10, 12], the grid is [10, 12] (ny, nx)"), std::string::npos) << e;
  e = error_of([&] { eddy::io::read_mask(dir / "real.h5", "solid", 3, n, 0.1); });
  EXPECT_NE(e.find("real.h5' does not hold integers"), std::string::npos) << e;
  e = error_of([&] { eddy::io::read_mask(dir / "mask.h5", "obstacle", 3, n, 0.1); });
  EXPECT_NE(e.find("mask.h5' has no mask dataset 'obstacle'"), std::string::npos) << e;
  e = error_of([&] { eddy::io::read_mask(dir / "none.h5", "solid", 3, n, 0.1); });
  EXPECT_NE(e.find("none.h5': no such file"), std::string::npos) << e;
}

// h5py stores a numpy bool array as an HDF5 enum {FALSE = 0, TRUE = 1} over int8: written here with
// the HDF5 C API as h5py does, it reads as a mask like uint8.
TEST(Mask, NumpyBoolDatasetAsH5pyWritesIt) {
  TempDir dir;
  const Int3 n{5, 4, 3};
  std::vector<std::int8_t> v(5 * 4 * 3, 0);
  v[(2 * 4 + 1) * 5 + 3] = 1;  // cell (3, 1, 2)
  v[0] = 1;                    // cell (0, 0, 0)
  const hid_t file = H5Fcreate((dir / "bool.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t type = H5Tenum_create(H5T_NATIVE_INT8);
  const std::int8_t no = 0, yes = 1;
  H5Tenum_insert(type, "FALSE", &no);
  H5Tenum_insert(type, "TRUE", &yes);
  const hsize_t dims[3] = {3, 4, 5};
  const hid_t space = H5Screate_simple(3, dims, nullptr);
  const hid_t dset = H5Dcreate2(file, "solid", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  H5Dclose(dset);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(file);

  const auto body = eddy::io::read_mask(dir / "bool.h5", "solid", 3, n, 1.0);
  int n_in = 0;
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 5; ++i) n_in += body->inside({i + 0.5, j + 0.5, k + 0.5});
  EXPECT_EQ(n_in, 2);
  EXPECT_TRUE(body->inside({3.5, 1.5, 2.5}));
  EXPECT_TRUE(body->inside({0.5, 0.5, 0.5}));
  EXPECT_NE(body->describe().find("2 solid cells"), std::string::npos) << body->describe();
}
