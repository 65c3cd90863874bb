#pragma once
/// Solid masks from HDF5: a staircase body given cell by cell.
///
/// The dataset has the grid's shape in eddy's field layout (io/hdf5/block.hpp): C order with z
/// slowest, `(nz, ny, nx)` in 3D, `(ny, nx)` in 2D, `(nx)` in 1D, the same as the fields eddy writes.
/// Values are integers (uint8 is the intended type; any integer width or sign, or a numpy bool
/// written by h5py, is accepted): 0 = fluid, nonzero = solid. With h5py, for a grid of nx x ny x nz
/// cells of size dx whose centres are at (i + 1/2) dx:
///
///     z, y, x = np.meshgrid(*[(np.arange(n) + 0.5) * dx for n in (nz, ny, nx)], indexing="ij")
///     solid = (x - 0.5)**2 + (y - 0.5)**2 + (z - 0.5)**2 < 0.1**2      # shape (nz, ny, nx)
///     with h5py.File("mask.h5", "w") as f:
///         f.create_dataset("solid", data=solid.astype(np.uint8))
#include <string>

#include "core/types.hpp"
#include "geometry/shape.hpp"

namespace eddy::io {

/// The body marked by the nonzero values of `dataset` in the HDF5 file `path`, on a grid of `dims`
/// (1, 2 or 3) dimensions with `cells` cells per direction (unused = 1) of size `dx`. Its inside(p)
/// is the value of the cell whose box [i dx, (i+1) dx) holds p (false outside the grid; in 2D p's z
/// is ignored), crossing() is -1 (a staircase: half-way bounce-back), bounds() the box of the solid
/// cells. InputError naming the file and the dataset when either is missing, the shape differs from
/// the grid's, or the values are not integers.
geometry::ShapePtr read_mask(const std::string& path, const std::string& dataset, int dims, Int3 cells,
                             double dx);

}  // namespace eddy::io
