#pragma once
/// The periodic box of a spectral solver as kernels see it: this rank's part of physical space and of
/// wave-number space, the wave vector of each local mode, the 2/3-rule mask and the Hermitian weights.
///
/// Layouts (x fastest everywhere, the order of the axes in memory never changes; field/slab.hpp names the
/// two slab layouts):
///   physical, 3D [z_local][y_local][x], 2D [y_local][x];
///   spectral, 3D [kz][ky_local][kx_local], 2D [ky][kx_local], kx = 0 .. nx/2 (real-to-complex half).
/// As one 3D array [a][b][c]: 3D a = z, b = y, c = x; 2D a = y, b = x, c = 1.
/// Slab decomposition (P ranks, process grid 1 x P): a rank holds whole x(-y) planes of physical space
/// ("a-slabs": y_local = y) and every kz (2D: ky) of a block of ky (2D: kx) rows ("b-slabs").
/// Pencil decomposition (3D, process grid P1 x P2, spectral/slab_fft.hpp): physical x-pencils, z split over
/// P2 and y over P1; spectral z-pencils, ky split over P2 and kx over P1. Slab is the case P1 = 1.
/// On one rank both layouts are the natural output of a full multi-dimensional r2c transform.
#include <cmath>

#include "backend/fft.hpp"
#include "backend/macros.hpp"
#include "core/types.hpp"
#include "field/slab.hpp"

namespace eddy::spectral {

/// Integer wave number of Fourier index i of an n-point transform: 0, 1, .., n/2, -(n-1)/2, .., -1.
EDDY_HD EDDY_INLINE index_t wave_number(index_t i, index_t n) { return 2 * i <= n ? i : i - n; }

/// Trivially copyable: pass it into kernels by value.
struct Grid {
  int dims = 3;
  index_t n[3] = {1, 1, 1};        ///< global points per direction (n[2] = 1 in 2D)
  double kf[3] = {1.0, 1.0, 1.0};  ///< fundamental wave numbers 2 pi / L [1/m]
  index_t kmax[3] = {0, 0, 0};     ///< 2/3 rule: modes with |k_i| <= kmax_i = (n_i - 1) / 3 are kept
  bool spherical = false;          ///< phase-shift dealiasing: keep sum_i (k_i / n_i)^2 <= 2/9 instead
  index_t na = 1, nb = 1, nc = 1;  ///< the spectral array as [a][b][c], global extents
  index_t a0 = 0, na_local = 1;    ///< this rank's physical a-planes (3D: z, split over P2)
  index_t y0 = 0, ny_local = 1;    ///< 3D: this rank's physical y rows (split over P1; slab: all)
  index_t b0 = 0, nb_local = 1;    ///< this rank's spectral b-rows (3D: ky, split over P2)
  index_t c0 = 0, nc_local = 1;    ///< this rank's spectral c-columns (3D: kx, split over P1; slab: all)
  index_t plane = 1;               ///< local physical points per a-plane (nx ny_local in 3D, nx in 2D)

  /// The grid of `cells` points on a box of edge `length`, as rank `rank` of `ranks` sees it (slab).
  static Grid make(int dims, const Int3& cells, const Real3& length, int ranks, int rank,
                   bool spherical = false) {
    return make(dims, cells, length, 1, 0, ranks, rank, spherical);
  }
  /// The same on a P1 x P2 process grid (pencil; P1 = 1 is a slab, P1 > 1 needs 3D), as the rank with
  /// coordinates (i1, i2) sees it.
  static Grid make(int dims, const Int3& cells, const Real3& length, int p1, int i1, int p2, int i2,
                   bool spherical = false) {
    Grid g;
    g.dims = dims;
    g.spherical = spherical;
    for (int d = 0; d < 3; ++d) {
      g.n[d] = d < dims ? cells[static_cast<std::size_t>(d)] : 1;
      g.kf[d] = d < dims ? 2.0 * M_PI / length[static_cast<std::size_t>(d)] : 0.0;
      g.kmax[d] = d < dims ? (g.n[d] - 1) / 3 : 0;
    }
    if (dims == 3) {
      g.na = g.n[2], g.nb = g.n[1], g.nc = g.n[0] / 2 + 1, g.plane = g.n[0] * g.n[1];
    } else {
      g.na = g.n[1], g.nb = g.n[0] / 2 + 1, g.nc = 1, g.plane = g.n[0];
    }
    g.a0 = field::BlockSplit::start(g.na, p2, i2);
    g.na_local = field::BlockSplit::count(g.na, p2, i2);
    g.b0 = field::BlockSplit::start(g.nb, p2, i2);
    g.nb_local = field::BlockSplit::count(g.nb, p2, i2);
    g.c0 = field::BlockSplit::start(g.nc, p1, i1);
    g.nc_local = field::BlockSplit::count(g.nc, p1, i1);
    g.ny_local = g.n[1];
    if (dims == 3) {
      g.y0 = field::BlockSplit::start(g.n[1], p1, i1);
      g.ny_local = field::BlockSplit::count(g.n[1], p1, i1);
      g.plane = g.n[0] * g.ny_local;
    }
    return g;
  }

  /// The grid as rank exchange.rank() of a slab (P1 = 1) or pencil (P1 = exchange.p1()) decomposition
  /// sees it (field/slab.hpp: rank = i1 P2 + i2).
  static Grid make(int dims, const Int3& cells, const Real3& length, const field::TransposeExchange& exchange,
                   bool spherical = false) {
    const int p1 = exchange.p1(), p2 = exchange.ranks() / p1, r = exchange.rank();
    return make(dims, cells, length, p1, r / p2, p2, r % p2, spherical);
  }

  /// Local spectral modes.
  EDDY_HD EDDY_INLINE index_t modes() const { return na * nb_local * nc_local; }
  /// Local physical points.
  EDDY_HD EDDY_INLINE index_t points() const { return na_local * plane; }
  /// Global physical points (the normalisation of the transforms).
  EDDY_HD EDDY_INLINE index_t total_points() const { return n[0] * n[1] * n[2]; }

  /// The local modes as an nx x ny x nz box of rows along the axis that is contiguous in memory (kx: the
  /// c axis in 3D, b in 2D): 3D (nc_local, nb_local, na), 2D (nb_local, na, 1). Mode m = x + nx (y + ny z)
  /// is the box's cell (x, y, z), the flat index parallel_for_box counts cells by.
  struct ModeBox {
    index_t nx, ny, nz;
  };
  EDDY_HD EDDY_INLINE ModeBox mode_box() const {
    return dims == 3 ? ModeBox{nc_local, nb_local, na} : ModeBox{nb_local, na, 1};
  }
  /// Integer wave numbers of row (y, z) of the mode box: ix0 that of its first mode (ix = ix0 + x along
  /// the row), iy and iz those of every mode of it.
  EDDY_HD EDDY_INLINE void row_wave(index_t y, index_t z, index_t& ix0, index_t& iy, index_t& iz) const {
    if (dims == 3) {
      ix0 = c0, iy = wave_number(b0 + y, n[1]), iz = wave_number(z, n[2]);
    } else {
      ix0 = b0, iy = wave_number(y, n[1]), iz = 0;
    }
  }

  /// Integer wave numbers (ix >= 0) of local mode m: its cell (x, y, z) of the mode box, then row_wave.
  EDDY_HD EDDY_INLINE void wave(index_t m, index_t& ix, index_t& iy, index_t& iz) const {
    const ModeBox box = mode_box();
    index_t x, y, z;
    if (m < (index_t(1) << 32)) {  // 32-bit division where it suffices: several times cheaper on GPUs
      const auto mm = static_cast<unsigned>(m), rest = mm / static_cast<unsigned>(box.nx);
      x = mm - rest * static_cast<unsigned>(box.nx);
      z = rest / static_cast<unsigned>(box.ny);
      y = rest - static_cast<unsigned>(z) * static_cast<unsigned>(box.ny);
    } else {
      x = m % box.nx, y = (m / box.nx) % box.ny, z = m / box.nx / box.ny;
    }
    row_wave(y, z, ix, iy, iz);
    ix += x;
  }
  /// Whether the truncation keeps the mode (both remove every Nyquist mode): the 2/3 rule (Orszag 1971),
  /// or with phase shifts the sphere of radius sqrt(2)/3 N (Patterson & Orszag 1971), which keeps the
  /// modes whose doubly aliased products could reach it out of the products' reach.
  EDDY_HD EDDY_INLINE bool kept(index_t ix, index_t iy, index_t iz) const {
    if (spherical) {
      double r = 0;
      const index_t i[3] = {ix, iy, iz};
      for (int d = 0; d < dims; ++d) r += double(i[d] * i[d]) / double(n[d] * n[d]);
      return 9.0 * r <= 2.0;
    }
    return ix <= kmax[0] && iy <= kmax[1] && -iy <= kmax[1] && iz <= kmax[2] && -iz <= kmax[2];
  }
  /// The largest |k_d| of a kept mode (0 <= d < dims): per axis, the extent of the box that bounds the
  /// mask (the pruned transforms' box, slab_fft.hpp). Both masks keep a mode only if they keep each of its
  /// projections on the axes (and are symmetric in the sign of k_y, k_z), so the extent is the largest
  /// k kept on the axis itself: kmax_d with the 2/3 rule, floor(n_d sqrt(2) / 3) with the sphere. Host.
  index_t kept_extent(int d) const {
    index_t e = 0;
    for (index_t k = 1; 2 * k <= n[d]; ++k)
      if (kept(d == 0 ? k : 0, d == 1 ? k : 0, d == 2 ? k : 0)) e = k;
    return e;
  }
  /// The phase exp(i k.delta) of a shift delta of half a cell in every direction, as the angle k.delta.
  EDDY_HD EDDY_INLINE double half_cell_phase(index_t ix, index_t iy, index_t iz) const {
    const index_t i[3] = {ix, iy, iz};
    double a = 0;
    for (int d = 0; d < dims; ++d) a += double(i[d]) / double(n[d]);
    return 3.141592653589793 * a;
  }
  /// How many times the mode counts in a sum over the full spectrum: 2 for kx > 0 (its conjugate
  /// partner at -k is not stored), 1 on the kx = 0 and kx = nx/2 planes.
  EDDY_HD EDDY_INLINE int weight(index_t ix) const { return ix == 0 || 2 * ix == n[0] ? 1 : 2; }
};

/// The physical wave vector and mask of one local mode, in the arithmetic precision T.
template <class T>
struct Mode {
  T k[3];      ///< wave vector [1/m]
  T k2;        ///< |k|^2
  bool kept;   ///< inside the dealiasing mask
  int weight;  ///< Hermitian weight (Grid::weight)
  index_t ix, iy, iz;

  EDDY_HD EDDY_INLINE static Mode at(const Grid& g, index_t m) {
    index_t ix, iy, iz;
    g.wave(m, ix, iy, iz);
    return at(g, ix, iy, iz);
  }
  /// The mode of integer wave numbers (ix, iy, iz).
  EDDY_HD EDDY_INLINE static Mode at(const Grid& g, index_t ix, index_t iy, index_t iz) {
    Mode s;
    s.ix = ix, s.iy = iy, s.iz = iz;
    s.k[0] = T(g.kf[0] * double(s.ix));
    s.k[1] = T(g.kf[1] * double(s.iy));
    s.k[2] = T(g.kf[2] * double(s.iz));
    s.k2 = s.k[0] * s.k[0] + s.k[1] * s.k[1] + s.k[2] * s.k[2];
    s.kept = g.kept(s.ix, s.iy, s.iz);
    s.weight = g.weight(s.ix);
    return s;
  }
  /// 1 / |k|^2, and 0 at k = 0. The division runs there too, of 1, so that a loop over modes takes it
  /// in vector lanes with a select: a branch around it would stay a branch (a division by zero may trap).
  EDDY_HD EDDY_INLINE T inv_k2() const {
    const T q = T(1) / (k2 > T(0) ? k2 : T(1));
    return k2 > T(0) ? q : T(0);
  }
  /// exp(+i k.delta) (sign +1) or exp(-i k.delta) (sign -1) for the half-cell shift delta.
  EDDY_HD EDDY_INLINE backend::Complex<T> shift(const Grid& g, int sign) const {
    const double a = g.half_cell_phase(ix, iy, iz);
    return {T(std::cos(a)), T(sign * std::sin(a))};
  }
};

/// A run of modes of one row of the mode box (Grid::mode_box): the modes x0 .. x0 + count - 1 of row (y, z),
/// as parallel_for_row_chunks hands them over (on the CPU the lanes of vector loops; one mode on a GPU
/// thread). Along a row only kx changes, and kx >= 0 grows with x; both truncations keep a mode only if they
/// keep every mode of smaller kx on its row (Grid::kept grows with ix), so the kept modes of a run come
/// first.
struct ModeRun {
  index_t m0;           ///< local index of the run's first mode
  index_t ix0, iy, iz;  ///< integer wave numbers of the first mode (ix = ix0 + j for mode j of the run)
  index_t count;        ///< modes in the run
  index_t kept;         ///< how many of them, from the first, the truncation keeps

  EDDY_HD EDDY_INLINE static ModeRun at(const Grid& g, index_t x0, index_t count, index_t y, index_t z) {
    const Grid::ModeBox b = g.mode_box();
    ModeRun r;
    r.m0 = x0 + b.nx * (y + b.ny * z);
    g.row_wave(y, z, r.ix0, r.iy, r.iz);
    r.ix0 += x0;
    r.count = count;
    r.kept = 0;
    while (r.kept < count && g.kept(r.ix0 + r.kept, r.iy, r.iz)) ++r.kept;
    return r;
  }
  /// Mode j < kept of the run (the truncation keeps it: known, not tested).
  template <class T>
  EDDY_HD EDDY_INLINE Mode<T> kept_mode(const Grid& g, index_t j) const {
    Mode<T> md = Mode<T>::at(g, ix0 + j, iy, iz);
    md.kept = true;
    return md;
  }
};

}  // namespace eddy::spectral
