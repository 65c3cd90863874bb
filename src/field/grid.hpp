#pragma once
/// Index maps of a rank's block: interior cells plus a ghost layer, x fastest.
#include "backend/macros.hpp"
#include "core/types.hpp"

namespace eddy::field {

/// A block of nx*ny*nz interior cells surrounded by `ghost` cells on every side of each active
/// dimension (z is inactive in 2D: one plane, no ghosts). Trivially copyable: pass it into kernels.
/// With `align` > 1 the rows (stride_y) are padded to a multiple of `align` cells: unused cells at the end of
/// each row, so that an array whose interior cell x = 0 sits on an aligned address (see lead()) has every
/// row's interior start aligned as well: a warp's 32 consecutive cells are then one 128-byte line
/// instead of straddling two.
struct PaddedGrid {
  int dims = 3;
  index_t nx = 1, ny = 1, nz = 1;      ///< interior cells
  index_t g = 1;                       ///< ghost width in x and y (and z in 3D)
  index_t gz = 1;                      ///< ghost width in z (0 in 2D)
  index_t stride_y = 1, stride_z = 1;  ///< padded strides of y and z (cells)
  index_t n_padded = 1;                ///< padded cells in all

  static PaddedGrid make(int dims, Int3 interior, index_t ghost, index_t align = 1) {
    PaddedGrid p;
    p.dims = dims;
    p.nx = interior[0], p.ny = interior[1], p.nz = dims == 3 ? interior[2] : 1;
    p.g = ghost;
    p.gz = dims == 3 ? ghost : 0;
    p.stride_y = (p.nx + 2 * p.g + align - 1) / align * align;
    p.stride_z = p.stride_y * (p.ny + 2 * p.g);
    p.n_padded = p.stride_z * (p.nz + 2 * p.gz);
    return p;
  }
  /// Elements to leave before padded cell 0 in an allocation whose start is aligned to `align`
  /// elements, so that interior cell x = 0 of every row is aligned (rows are a multiple of `align`).
  static constexpr index_t lead(index_t ghost, index_t align) { return (align - ghost % align) % align; }
  /// Interior cells.
  EDDY_HD EDDY_INLINE index_t n_interior() const { return nx * ny * nz; }
  /// Padded index of a cell given in padded coordinates (0 <= x < nx + 2g, ...).
  EDDY_HD EDDY_INLINE index_t padded(index_t x, index_t y, index_t z) const {
    return x + stride_y * y + stride_z * z;
  }
  /// Padded coordinates of padded cell n: the inverse of padded().
  EDDY_HD EDDY_INLINE void coordinates(index_t n, index_t (&p)[3]) const {
    p[0] = n % stride_y, p[1] = (n / stride_y) % (ny + 2 * g), p[2] = n / stride_z;
  }
  /// Padded index of interior cell (x, y, z), 0 <= x < nx.
  EDDY_HD EDDY_INLINE index_t at(index_t x, index_t y, index_t z) const {
    return padded(x + g, y + g, z + gz);
  }
  /// Padded index of the t-th interior cell (x fastest).
  EDDY_HD EDDY_INLINE index_t interior_to_padded(index_t t) const {
    const index_t x = t % nx, yz = t / nx;
    return at(x, yz % ny, yz / ny);
  }
  /// Offset of the neighbour at (cx, cy, cz).
  EDDY_HD EDDY_INLINE index_t offset(int cx, int cy, int cz) const {
    return cx + stride_y * cy + stride_z * cz;
  }
};

/// A box of a block's interior cells (x fastest), mapped to padded indices: kernels over part of a block.
struct SubBox {
  PaddedGrid grid;
  index_t nx = 0, ny = 0, nz = 0;  ///< cells of the box
  index_t ox = 0, oy = 0, oz = 0;  ///< interior coordinates of its first cell

  /// The whole interior.
  static SubBox interior(const PaddedGrid& g) { return {g, g.nx, g.ny, g.nz, 0, 0, 0}; }
  /// The interior less `w` cells at every face (z only in 3D).
  static SubBox inner(const PaddedGrid& g, index_t w) {
    const index_t wz = g.dims == 3 ? w : 0;
    return {g, g.nx - 2 * w, g.ny - 2 * w, g.nz - 2 * wz, w, w, wz};
  }
  EDDY_HD EDDY_INLINE index_t size() const { return nx * ny * nz; }
  /// Whether interior cell (x, y, z) lies in the box.
  bool contains(index_t x, index_t y, index_t z) const {
    return x >= ox && x < ox + nx && y >= oy && y < oy + ny && z >= oz && z < oz + nz;
  }
  /// Padded index of the t-th cell of the box. 32-bit division where it suffices: 64-bit integer
  /// division is a long instruction sequence on GPUs and this runs once per cell and step.
  EDDY_HD EDDY_INLINE index_t padded(index_t t) const {
    if (size() < (index_t(1) << 31)) {
      const unsigned tt = static_cast<unsigned>(t), bx = static_cast<unsigned>(nx),
                     by = static_cast<unsigned>(ny);
      const unsigned yz = tt / bx;
      return grid.at(index_t(tt - yz * bx) + ox, index_t(yz % by) + oy, index_t(yz / by) + oz);
    }
    const index_t x = t % nx, yz = t / nx;
    return grid.at(x + ox, yz % ny + oy, yz / ny + oz);
  }
};

}  // namespace eddy::field
