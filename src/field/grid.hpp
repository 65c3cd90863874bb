#pragma once
/// Index maps of a rank's block: interior cells plus a ghost layer, x fastest.
#include "backend/macros.hpp"
#include "core/types.hpp"

namespace eddy::field {

/// A block of nx*ny*nz interior cells surrounded by `ghost` cells on every side of each active
/// dimension (z is inactive in 2D: one plane, no ghosts). Trivially copyable: pass it into kernels.
struct PaddedGrid {
  int dims = 3;
  index_t nx = 1, ny = 1, nz = 1;  ///< interior cells
  index_t g = 1;                   ///< ghost width in x and y (and z in 3D)
  index_t gz = 1;                  ///< ghost width in z (0 in 2D)
  index_t sx = 1, sy = 1;          ///< padded strides of y and z
  index_t n_padded = 1;            ///< padded cells in all

  static PaddedGrid make(int dims, Int3 interior, index_t ghost) {
    PaddedGrid p;
    p.dims = dims;
    p.nx = interior[0], p.ny = interior[1], p.nz = dims == 3 ? interior[2] : 1;
    p.g = ghost;
    p.gz = dims == 3 ? ghost : 0;
    p.sx = p.nx + 2 * p.g;
    p.sy = p.sx * (p.ny + 2 * p.g);
    p.n_padded = p.sy * (p.nz + 2 * p.gz);
    return p;
  }
  /// Interior cells.
  EDDY_HD EDDY_INLINE index_t n_interior() const { return nx * ny * nz; }
  /// Padded index of a cell given in padded coordinates (0 <= x < nx + 2g, ...).
  EDDY_HD EDDY_INLINE index_t padded(index_t x, index_t y, index_t z) const { return x + sx * y + sy * z; }
  /// Padded index of interior cell (x, y, z), 0 <= x < nx.
  EDDY_HD EDDY_INLINE index_t at(index_t x, index_t y, index_t z) const { return padded(x + g, y + g, z + gz); }
  /// Padded index of the t-th interior cell (x fastest).
  EDDY_HD EDDY_INLINE index_t interior_to_padded(index_t t) const {
    const index_t x = t % nx, yz = t / nx;
    return at(x, yz % ny, yz / ny);
  }
  /// Offset of the neighbour at (cx, cy, cz).
  EDDY_HD EDDY_INLINE index_t offset(int cx, int cy, int cz) const { return cx + sx * cy + sy * cz; }
};

}  // namespace eddy::field
