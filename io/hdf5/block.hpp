#pragma once
/// A rank's box of the global grid, and the layouts that tie local arrays to datasets in a file.
///
/// Local arrays handed to the writers (and returned by FieldReader::read_block) are contiguous over
/// `extent` with x fastest, then y, then z; a trailing component axis (vectors, populations) is the
/// fastest of all, i.e. components of one cell are adjacent. Datasets in the file are in C order with
/// z slowest: 3D `(nz, ny, nx[, ncomp])`, 2D `(ny, nx[, ncomp])`, 1D `(nx[, ncomp])`. With these two
/// conventions a rank's local array is exactly its hyperslab of the dataset, so no reordering happens.
#include <string>
#include <vector>

#include "core/types.hpp"

namespace eddy::io {

struct Block {
  int dims = 3;          ///< 1, 2 or 3
  Int3 global{1, 1, 1};  ///< cells of the whole grid per direction (x=0, y=1, z=2); unused = 1
  Int3 offset{0, 0, 0};  ///< first global cell of this rank's box
  Int3 extent{1, 1, 1};  ///< cells of this rank's box; 0 in any direction = this rank holds nothing

  /// The whole grid as one block (one rank, or data every rank holds completely).
  static Block whole(int dims, const Int3& global) {
    Block b;
    b.dims = dims;
    b.global = global;
    b.extent = global;
    return b;
  }
  /// Cells in this rank's box.
  index_t local_cells() const { return extent[0] * extent[1] * extent[2]; }
  /// Cells in the global grid.
  index_t global_cells() const { return global[0] * global[1] * global[2]; }

  /// Dataset shape in the file, C order (z slowest); `ncomp` > 0 appends a component axis.
  std::vector<index_t> file_shape(int ncomp) const { return shape_of(global, ncomp); }
  /// This rank's hyperslab start in the file, same axis order as file_shape.
  std::vector<index_t> file_start() const {
    std::vector<index_t> s;
    for (int d = dims - 1; d >= 0; --d) s.push_back(offset[static_cast<size_t>(d)]);
    return s;
  }
  /// This rank's hyperslab count in the file, same axis order as file_shape.
  std::vector<index_t> file_count(int ncomp) const { return shape_of(extent, ncomp); }

  /// Empty when the block is consistent, else a sentence saying what is wrong.
  std::string check() const {
    if (dims < 1 || dims > 3) return "dims must be 1, 2 or 3 (got " + std::to_string(dims) + ")";
    for (size_t d = 0; d < 3; ++d) {
      const std::string axis(1, "xyz"[d]);
      if (global[d] < 1) return "global cells along " + axis + " must be >= 1";
      if (offset[d] < 0 || extent[d] < 0) return "negative offset or extent along " + axis;
      if (offset[d] + extent[d] > global[d])
        return "box [" + std::to_string(offset[d]) + ", " + std::to_string(offset[d] + extent[d]) +
               ") along " + axis + " exceeds the grid of " + std::to_string(global[d]) + " cells";
      if (static_cast<int>(d) >= dims && (global[d] != 1 || offset[d] != 0 || extent[d] > 1))
        return "unused direction " + axis + " must have 1 global cell and offset 0";
    }
    return {};
  }

 private:
  std::vector<index_t> shape_of(const Int3& n, int ncomp) const {
    std::vector<index_t> s;
    for (int d = dims - 1; d >= 0; --d) s.push_back(n[static_cast<size_t>(d)]);
    if (ncomp > 0) s.push_back(ncomp);
    return s;
  }
};

/// What a field file holds for one field-shaped dataset; enough for an XDMF description.
struct DatasetInfo {
  std::string name;  ///< dataset path in the file, e.g. "velocity"
  int ncomp = 0;     ///< 0 = scalar (no component axis), else the length of the component axis
  int bytes = 8;     ///< bytes per value: 8 (double) or 4 (float)
};

}  // namespace eddy::io
