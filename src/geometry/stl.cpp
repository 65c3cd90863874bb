#include "geometry/stl.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "core/file_kind.hpp"
#include "geometry/predicates.hpp"

namespace eddy::geometry {

namespace {

namespace fs = std::filesystem;

std::string point_text(const Real3& p) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%.9g, %.9g, %.9g)", p[0], p[1], p[2]);
  return buf;
}

std::string in_file(const std::string& path) { return "STL file '" + path + "'"; }

/// Which side of the directed line u -> v the point p + (e, e^2) lies on, for an infinitesimal e > 0
/// (Simulation of Simplicity, Edelsbrunner & Mucke 1990): never 0 when u != v, and exactly opposite
/// for v -> u, so a point on an edge shared by two facets is inside exactly one of them.
int side(double ux, double uy, double vx, double vy, double px, double py) {
  const int o = orient2d(ux, uy, vx, vy, px, py);
  if (o != 0) return o;
  // orient(u, v, p + (e, e^2)) = orient(u, v, p) + (uy - vy) e + (vx - ux) e^2
  if (uy != vy) return uy > vy ? 1 : -1;
  return vx > ux ? 1 : -1;
}

// ----------------------------------------------------------------------------------- reading STL

std::string read_bytes(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("cannot open " + in_file(path) + ": no such file");
  if (const std::string why = not_regular_file(path); !why.empty())
    throw InputError("cannot read " + in_file(path) + ": " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open " + in_file(path) + ": " + std::strerror(errno));
  std::string bytes;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0 || !in) throw InputError("cannot read " + in_file(path));
  bytes.resize(static_cast<size_t>(size));
  if (size > 0 && !in.read(bytes.data(), size)) throw InputError("cannot read " + in_file(path));
  return bytes;
}

inline std::uint32_t le_u32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

inline double le_float(const unsigned char* p) {
  const std::uint32_t u = le_u32(p);
  float f;
  std::memcpy(&f, &u, 4);
  return static_cast<double>(f);
}

bool iequals(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

/// Whitespace-separated tokens of an ASCII STL, with their line numbers.
class Lexer {
 public:
  Lexer(const std::string& text, const std::string& path) : s_(text), path_(path) {}
  /// The next token, or "" at the end; line() is its line.
  std::string next() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
    const size_t b = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    tok_line_ = line_;
    return s_.substr(b, pos_ - b);
  }
  /// Skip the rest of the current token's line (a solid's name).
  void skip_line() {
    while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
  }
  long line() const { return tok_line_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(in_file(path_) + ", line " + std::to_string(tok_line_) + ": " + what);
  }
  void expect(const char* word) {
    const std::string t = next();
    if (!iequals(t, word))
      fail(t.empty() ? std::string("ends where '") + word + "' was expected (truncated?)"
                     : std::string("expected '") + word + "', found '" + t + "'");
  }
  double number() {
    const std::string t = next();
    if (t.empty()) fail("ends where a number was expected (truncated?)");
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size()) fail("expected a number, found '" + t + "'");
    return v;
  }

 private:
  const std::string& s_;
  const std::string& path_;
  size_t pos_ = 0;
  long line_ = 1;
  long tok_line_ = 1;
};

std::vector<Triangle> parse_ascii(const std::string& text, const std::string& path) {
  std::vector<Triangle> out;
  Lexer lex(text, path);
  lex.expect("solid");
  lex.skip_line();
  while (true) {
    const std::string t = lex.next();
    if (t.empty()) lex.fail("ends before 'endsolid' (truncated?)");
    if (iequals(t, "endsolid")) {
      lex.skip_line();
      const std::string more = lex.next();
      if (more.empty()) break;
      if (!iequals(more, "solid")) lex.fail("expected 'solid' or the end of the file, found '" + more + "'");
      lex.skip_line();
      continue;
    }
    if (!iequals(t, "facet")) lex.fail("expected 'facet' or 'endsolid', found '" + t + "'");
    lex.expect("normal");
    for (int c = 0; c < 3; ++c) lex.number();
    lex.expect("outer");
    lex.expect("loop");
    Triangle tri{};
    int nv = 0;
    while (true) {
      const std::string w = lex.next();
      if (iequals(w, "endloop")) break;
      if (!iequals(w, "vertex"))
        lex.fail(w.empty() ? "ends inside a facet (truncated?)"
                           : "expected 'vertex' or 'endloop', found '" + w + "'");
      Real3 v{};
      for (int c = 0; c < 3; ++c) v[static_cast<size_t>(c)] = lex.number();
      if (nv < 3) tri[static_cast<size_t>(nv)] = v;
      ++nv;
    }
    if (nv != 3) lex.fail("a facet with " + std::to_string(nv) + " vertices (STL facets are triangles)");
    lex.expect("endfacet");
    out.push_back(tri);
  }
  return out;
}

std::vector<Triangle> parse_binary(const std::string& bytes) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint32_t n = le_u32(b + 80);
  std::vector<Triangle> out(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    const unsigned char* rec = b + 84 + 50 * static_cast<size_t>(t) + 12;  // skip the stored normal
    for (size_t v = 0; v < 3; ++v)
      for (size_t c = 0; c < 3; ++c) out[t][v][c] = le_float(rec + 12 * v + 4 * c);
  }
  return out;
}

// ------------------------------------------------------------------------------ the mesh, checked

using Index3 = std::array<std::uint32_t, 3>;

struct Mesh {
  std::vector<Real3> vertices;
  std::vector<Index3> facets;
  Aabb box;
  double volume = 0.0;
};

/// Merge vertices closer than `tol` (the first one seen stays), via a hash grid of cells of size tol:
/// a match lies in one of the 27 cells around a vertex's own.
std::vector<std::uint32_t> weld(const std::vector<Triangle>& tris, const Aabb& box, double tol,
                                std::vector<Real3>& unique) {
  struct KeyHash {
    size_t operator()(const std::array<std::int64_t, 3>& k) const {
      std::uint64_t h = 0x9E3779B97F4A7C15ULL;
      for (std::int64_t v : k) h = (h ^ static_cast<std::uint64_t>(v)) * 0xff51afd7ed558ccdULL;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<std::array<std::int64_t, 3>, std::vector<std::uint32_t>, KeyHash> cells;
  cells.reserve(tris.size() * 2);
  std::vector<std::uint32_t> ids;
  ids.reserve(tris.size() * 3);
  for (const Triangle& t : tris) {
    for (const Real3& v : t) {
      std::array<std::int64_t, 3> c{};
      for (size_t d = 0; d < 3; ++d) c[d] = static_cast<std::int64_t>(std::floor((v[d] - box.lo[d]) / tol));
      std::uint32_t found = std::numeric_limits<std::uint32_t>::max();
      for (std::int64_t dz = -1; dz <= 1; ++dz)
        for (std::int64_t dy = -1; dy <= 1; ++dy)
          for (std::int64_t dx = -1; dx <= 1; ++dx) {
            auto it = cells.find({c[0] + dx, c[1] + dy, c[2] + dz});
            if (it == cells.end()) continue;
            for (std::uint32_t id : it->second) {
              const Real3& u = unique[id];
              const double d2 = (u[0] - v[0]) * (u[0] - v[0]) + (u[1] - v[1]) * (u[1] - v[1]) +
                                (u[2] - v[2]) * (u[2] - v[2]);
              if (d2 <= tol * tol && id < found) found = id;
            }
          }
      if (found == std::numeric_limits<std::uint32_t>::max()) {
        found = static_cast<std::uint32_t>(unique.size());
        unique.push_back(v);
        cells[c].push_back(found);
      }
      ids.push_back(found);
    }
  }
  return ids;
}

Mesh build_mesh(const std::vector<Triangle>& tris, const std::string& path) {
  if (tris.empty()) throw InputError(in_file(path) + " has no facets");
  if (tris.size() > std::numeric_limits<std::uint32_t>::max() / 3)
    throw InputError(in_file(path) + " has too many facets (" + std::to_string(tris.size()) + ")");
  Mesh m;
  m.box.lo = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
  m.box.hi = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (size_t t = 0; t < tris.size(); ++t)
    for (const Real3& v : tris[t])
      for (size_t d = 0; d < 3; ++d) {
        if (!std::isfinite(v[d]))
          throw InputError(in_file(path) + ": facet " + std::to_string(t + 1) +
                           " has a non-finite coordinate");
        m.box.lo[d] = std::min(m.box.lo[d], v[d]);
        m.box.hi[d] = std::max(m.box.hi[d], v[d]);
      }
  const double diag =
      std::hypot(m.box.hi[0] - m.box.lo[0], m.box.hi[1] - m.box.lo[1], m.box.hi[2] - m.box.lo[2]);
  if (!(diag > 0.0)) throw InputError(in_file(path) + " is degenerate: all its vertices coincide");

  // Writers emit a shared vertex once per facet, as the same float (binary) or the same digits (ASCII);
  // 1e-7 of the diagonal also joins copies that differ in the last bit of a float.
  const double tol = 1e-7 * diag;
  const std::vector<std::uint32_t> ids = weld(tris, m.box, tol, m.vertices);
  size_t collapsed = 0;
  for (size_t t = 0; t < tris.size(); ++t) {
    const Index3 f{ids[3 * t], ids[3 * t + 1], ids[3 * t + 2]};
    // A facet with two welded-equal vertices is an edge or a point: its two directed copies of the
    // remaining edge cancel, so dropping it keeps a closed surface closed.
    if (f[0] == f[1] || f[1] == f[2] || f[2] == f[0]) {
      ++collapsed;
      continue;
    }
    m.facets.push_back(f);
  }
  if (m.facets.empty())
    throw InputError(in_file(path) + " is degenerate: all its " + std::to_string(collapsed) +
                     " facets collapse to edges or points");

  // Watertight: the directed edges cancel, i.e. each undirected edge is traversed as often in one
  // direction as in the other (exactly once each for a manifold surface).
  struct Edge {
    std::uint32_t a, b;  // a < b
    int dir;             // +1: traversed a -> b, -1: b -> a
  };
  std::vector<Edge> edges;
  edges.reserve(3 * m.facets.size());
  for (const Index3& f : m.facets)
    for (size_t e = 0; e < 3; ++e) {
      const std::uint32_t u = f[e], v = f[(e + 1) % 3];
      edges.push_back(u < v ? Edge{u, v, 1} : Edge{v, u, -1});
    }
  std::sort(edges.begin(), edges.end(),
            [](const Edge& x, const Edge& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  size_t open = 0, alike = 0, odd = 0;
  std::string first_open, first_alike, first_odd;
  for (size_t g = 0; g < edges.size();) {
    size_t h = g;
    int balance = 0;
    while (h < edges.size() && edges[h].a == edges[g].a && edges[h].b == edges[g].b)
      balance += edges[h++].dir;
    const size_t uses = h - g;
    if (balance != 0) {
      const std::string where =
          "from " + point_text(m.vertices[edges[g].a]) + " to " + point_text(m.vertices[edges[g].b]);
      if (uses == 1) {
        if (open++ == 0) first_open = where;
      } else if (uses % 2 == 1) {
        if (odd++ == 0) first_odd = where;
      } else if (alike++ == 0) {
        first_alike = where;
      }
    }
    g = h;
  }
  if (open + alike + odd > 0) {
    std::string msg = in_file(path) + " is not watertight:";
    if (open)
      msg += " " + std::to_string(open) + " open edges (used by one facet only), first " + first_open + ";";
    if (odd)
      msg += " " + std::to_string(odd) + " edges shared by an odd number of facets, first " + first_odd + ";";
    if (alike)
      msg += " " + std::to_string(alike) +
             " edges whose facets run the same way (inconsistent orientation: flipped facets), first " +
             first_alike + ";";
    msg.back() = '.';
    throw InputError(msg +
                     " Every edge must be shared by two facets that traverse it in opposite directions.");
  }

  // Signed volume (divergence theorem, about the box centre to limit cancellation).
  const Real3 c{0.5 * (m.box.lo[0] + m.box.hi[0]), 0.5 * (m.box.lo[1] + m.box.hi[1]),
                0.5 * (m.box.lo[2] + m.box.hi[2])};
  double six_v = 0.0;
  for (const Index3& f : m.facets) {
    Real3 p[3];
    for (size_t v = 0; v < 3; ++v)
      for (size_t d = 0; d < 3; ++d) p[v][d] = m.vertices[f[v]][d] - c[d];
    six_v += p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) -
             p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
             p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
  }
  m.volume = six_v / 6.0;
  if (!(std::fabs(m.volume) > 1e-12 * diag * diag * diag))
    throw InputError(in_file(path) + " is degenerate: its surface encloses no volume");
  if (m.volume < 0.0) {  // inside out: turn every facet outward
    for (Index3& f : m.facets) std::swap(f[1], f[2]);
    m.volume = -m.volume;
  }
  return m;
}

// ------------------------------------------------------------------------------------ the Shape

Real3 sub(const Real3& a, const Real3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Real3 cross(const Real3& a, const Real3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Real3& a, const Real3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

class StlShape final : public Shape {
 public:
  StlShape(std::string path, const Mesh& m) : path_(std::move(path)), box_(m.box), volume_(m.volume) {
    // Cast rays along the axis in which the body is thinnest: the bins then tile its widest projection.
    const Real3 ext = sub(box_.hi, box_.lo);
    k_ = 2;
    if (ext[1] < ext[k_]) k_ = 1;
    if (ext[0] < ext[k_]) k_ = 0;
    i_ = (k_ + 1) % 3;
    j_ = (k_ + 2) % 3;

    facets_.reserve(m.facets.size());
    for (const Index3& idx : m.facets) {
      Facet f;
      for (size_t v = 0; v < 3; ++v) f.v[v] = m.vertices[idx[v]];
      f.e1 = sub(f.v[1], f.v[0]);
      f.e2 = sub(f.v[2], f.v[0]);
      f.n = cross(f.e1, f.e2);
      f.imin = std::min({f.v[0][i_], f.v[1][i_], f.v[2][i_]});
      f.imax = std::max({f.v[0][i_], f.v[1][i_], f.v[2][i_]});
      f.jmin = std::min({f.v[0][j_], f.v[1][j_], f.v[2][j_]});
      f.jmax = std::max({f.v[0][j_], f.v[1][j_], f.v[2][j_]});
      f.kmin = std::min({f.v[0][k_], f.v[1][k_], f.v[2][k_]});
      f.kmax = std::max({f.v[0][k_], f.v[1][k_], f.v[2][k_]});
      f.s = orient2d(f.v[0][i_], f.v[0][j_], f.v[1][i_], f.v[1][j_], f.v[2][i_], f.v[2][j_]);
      facets_.push_back(f);
    }

    // Bins: about two per facet over the projection's bounding rectangle. Long facets that span many
    // bins (slivers of CAD exports) could make the lists quadratic in the facet count: coarsen the
    // bins until the lists hold at most 64 entries per facet.
    double target = std::clamp(2.0 * static_cast<double>(facets_.size()), 1.0, double(1 << 22));
    while (true) {
      nbi_ = std::clamp<index_t>(std::llround(std::sqrt(target * ext[i_] / ext[j_])), 1, index_t(1) << 22);
      nbj_ = std::clamp<index_t>(std::llround(target / static_cast<double>(nbi_)), 1, index_t(1) << 22);
      inv_hi_ = static_cast<double>(nbi_) / ext[i_];
      inv_hj_ = static_cast<double>(nbj_) / ext[j_];
      double entries = 0.0;
      for (const Facet& f : facets_)
        entries += double(bin_i(f.imax) - bin_i(f.imin) + 1) * double(bin_j(f.jmax) - bin_j(f.jmin) + 1);
      if (entries <= 64.0 * static_cast<double>(facets_.size()) || nbi_ * nbj_ == 1) break;
      target /= 4.0;
    }
    std::vector<std::uint32_t> count(static_cast<size_t>(nbi_ * nbj_) + 1, 0);
    auto for_bins = [&](const Facet& f, auto&& visit) {
      const index_t i0 = bin_i(f.imin), i1 = bin_i(f.imax), j0 = bin_j(f.jmin), j1 = bin_j(f.jmax);
      for (index_t j = j0; j <= j1; ++j)
        for (index_t i = i0; i <= i1; ++i) visit(static_cast<size_t>(j * nbi_ + i));
    };
    for (const Facet& f : facets_) for_bins(f, [&](size_t b) { ++count[b + 1]; });
    for (size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    start_ = count;
    items_.resize(count.back());
    for (size_t t = 0; t < facets_.size(); ++t)
      for_bins(facets_[t], [&](size_t b) { items_[count[b]++] = static_cast<std::uint32_t>(t); });
  }

  bool inside(const Real3& p) const override {
    for (size_t d = 0; d < 3; ++d)
      if (!(p[d] >= box_.lo[d] && p[d] <= box_.hi[d])) return false;  // also false for NaN
    const double pi = p[i_], pj = p[j_], pk = p[k_];
    const size_t b = static_cast<size_t>(bin_j(pj) * nbi_ + bin_i(pi));
    // Winding number of the surface about p: the facets crossed by the ray from p' = p + (e, e^2) (in the
    // i, j plane) along +k, each counted with the sign of its normal along k. Nonzero is inside, so where
    // two closed shells overlap (winding 2) the point is solid, which parity would call fluid; a cavity
    // whose facets face into it (winding 0) stays fluid.
    int winding = 0;
    for (std::uint32_t n = start_[b]; n < start_[b + 1]; ++n) {
      const Facet& f = facets_[items_[n]];
      // Cheap rejections first: p' inside the projection implies p in its closed bounding box.
      if (f.kmax < pk || pi < f.imin || pi > f.imax || pj < f.jmin || pj > f.jmax) continue;
      if (f.s == 0 || !covers(f, pi, pj)) continue;
      if (f.kmin > pk) {
        winding += f.s;
        continue;
      }
      // The facet's plane meets the ray at p + lambda e_k, lambda = -n.(p - v0) / n_k; sign(n_k) = s.
      if (dot(f.n, sub(p, f.v[0])) * f.s < 0.0) winding += f.s;
    }
    return winding != 0;
  }

  double crossing(const Real3& a, const Real3& b) const override {
    const Real3 d = sub(b, a);
    const double klo = std::min(a[k_], b[k_]), khi = std::max(a[k_], b[k_]);
    const double ilo = std::min(a[i_], b[i_]), ihi = std::max(a[i_], b[i_]);
    const double jlo = std::min(a[j_], b[j_]), jhi = std::max(a[j_], b[j_]);
    const index_t i0 = bin_i(ilo), i1 = bin_i(ihi), j0 = bin_j(jlo), j1 = bin_j(jhi);
    double best = HUGE_VAL;
    for (index_t j = j0; j <= j1; ++j)
      for (index_t i = i0; i <= i1; ++i) {
        const size_t bin = static_cast<size_t>(j * nbi_ + i);
        for (std::uint32_t n = start_[bin]; n < start_[bin + 1]; ++n) {
          const Facet& f = facets_[items_[n]];
          if (f.kmax < klo || f.kmin > khi || f.imax < ilo || f.imin > ihi || f.jmax < jlo || f.jmin > jhi)
            continue;
          const double t = intersect(f, a, d);
          if (t < best) best = t;
        }
      }
    if (best != HUGE_VAL) return std::clamp(best, 0.0, 1.0);
    // No facet hit within the tolerances although the caller found a outside and b inside: the
    // surface passes within rounding of a or b. Bisect on inside(), which decided that.
    if (inside(a) || !inside(b)) return -1.0;
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      (inside({a[0] + mid * d[0], a[1] + mid * d[1], a[2] + mid * d[2]}) ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
  }

  Aabb bounds() const override { return box_; }

  std::string describe() const override {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%zu facets, volume %.6g", facets_.size(), volume_);
    return "stl " + path_ + " (" + buf + ")";
  }

 private:
  struct Facet {
    Real3 v[3];
    Real3 e1, e2, n;                ///< edges v1 - v0, v2 - v0 and their cross product
    double imin, imax, jmin, jmax;  ///< bounding box of the projection on the (i, j) plane
    double kmin, kmax;              ///< extent along the ray axis
    int s;  ///< exact sign of the projected area on the (i, j) plane; 0 = seen edge-on
  };

  index_t bin_i(double x) const {
    return std::clamp<index_t>(static_cast<index_t>(std::floor((x - box_.lo[i_]) * inv_hi_)), 0, nbi_ - 1);
  }
  index_t bin_j(double y) const {
    return std::clamp<index_t>(static_cast<index_t>(std::floor((y - box_.lo[j_]) * inv_hj_)), 0, nbj_ - 1);
  }

  /// Whether p' = (pi, pj) + (e, e^2) lies inside the facet's projection (exact predicates).
  bool covers(const Facet& f, double pi, double pj) const {
    for (size_t e = 0; e < 3; ++e) {
      const Real3& u = f.v[e];
      const Real3& v = f.v[(e + 1) % 3];
      if (side(u[i_], u[j_], v[i_], v[j_], pi, pj) != f.s) return false;
    }
    return true;
  }

  /// Moller & Trumbore (1997): the fraction t along a + t d where the segment meets the facet, or
  /// HUGE_VAL. Barycentric and t tolerances of 1e-10 leave no gap along an edge shared by two facets.
  static double intersect(const Facet& f, const Real3& a, const Real3& d) {
    constexpr double tol = 1e-10;
    const Real3 pv = cross(d, f.e2);
    const double det = dot(f.e1, pv);
    if (det == 0.0) return HUGE_VAL;  // segment parallel to the facet's plane
    const double inv = 1.0 / det;
    const Real3 tv = sub(a, f.v[0]);
    const double u = dot(tv, pv) * inv;
    if (!(u >= -tol && u <= 1.0 + tol)) return HUGE_VAL;
    const Real3 qv = cross(tv, f.e1);
    const double v = dot(d, qv) * inv;
    if (!(v >= -tol && u + v <= 1.0 + tol)) return HUGE_VAL;
    const double t = dot(f.e2, qv) * inv;
    if (!(t >= -tol && t <= 1.0 + tol)) return HUGE_VAL;
    return t;
  }

  std::string path_;
  Aabb box_;
  double volume_;
  size_t k_ = 2, i_ = 0, j_ = 1;  ///< ray axis and the two axes of the projection plane
  std::vector<Facet> facets_;
  index_t nbi_ = 1, nbj_ = 1;
  double inv_hi_ = 1.0, inv_hj_ = 1.0;
  std::vector<std::uint32_t> start_;  ///< bin b holds items_[start_[b] .. start_[b+1])
  std::vector<std::uint32_t> items_;  ///< facet indices, bin after bin
};

}  // namespace

std::vector<Triangle> read_stl(const std::string& path, const StlPlacement& placement) {
  if (!(std::isfinite(placement.scale) && placement.scale > 0.0))
    throw InputError("placement of " + in_file(path) + ": scale must be a positive number (got " +
                     std::to_string(placement.scale) + ")");
  for (double t : placement.translate)
    if (!std::isfinite(t)) throw InputError("placement of " + in_file(path) + ": translate must be finite");

  const std::string bytes = read_bytes(path);
  const size_t size = bytes.size();
  // Binary: an 80-byte header (which may well start with "solid"), a uint32 facet count, 50 bytes
  // per facet. A file whose size matches its count is binary; else one that starts with "solid" and
  // has no NUL byte where a binary header and count would be is ASCII; else a broken binary file.
  const std::uint64_t count =
      size >= 84 ? le_u32(reinterpret_cast<const unsigned char*>(bytes.data()) + 80) : 0;
  const std::uint64_t binary_size = 84 + 50 * count;
  std::vector<Triangle> tris;
  if (size >= 84 && binary_size == size) {
    tris = parse_binary(bytes);
  } else {
    const size_t first = bytes.find_first_not_of(" \t\r\n");
    const bool solid =
        first != std::string::npos && bytes.size() >= first + 5 && iequals(bytes.substr(first, 5), "solid");
    const bool text = bytes.find('\0') >= std::min<size_t>(size, 84);
    if (solid && text) {
      tris = parse_ascii(bytes, path);
    } else if (size >= 84) {
      throw InputError(in_file(path) + " is a broken binary STL: its header counts " + std::to_string(count) +
                       " facets, which take " + std::to_string(binary_size) + " bytes, but the file has " +
                       std::to_string(size) + (size < binary_size ? " (truncated)" : ""));
    } else {
      throw InputError(in_file(path) + " is not an STL file: " + std::to_string(size) +
                       " bytes, too short for a binary STL, and it does not start with 'solid'");
    }
  }
  for (Triangle& t : tris)
    for (Real3& v : t)
      for (size_t d = 0; d < 3; ++d) v[d] = placement.scale * v[d] + placement.translate[d];
  return tris;
}

ShapePtr load_stl(const std::string& path, const StlPlacement& placement) {
  const Mesh m = build_mesh(read_stl(path, placement), path);
  return std::make_unique<StlShape>(path, m);
}

}  // namespace eddy::geometry
