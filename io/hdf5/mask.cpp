#include "io/hdf5/mask.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "io/hdf5/block.hpp"
#include "io/hdf5/field_reader.hpp"

namespace eddy::io {

namespace {

std::string shape_text(const std::vector<index_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

/// One bit per cell, x fastest, then y, then z.
class MaskShape final : public geometry::Shape {
 public:
  MaskShape(std::string what, int dims, Int3 cells, double dx, const std::vector<std::uint8_t>& solid)
      : what_(std::move(what)), dims_(dims), cells_(cells), dx_(dx) {
    bits_.assign((solid.size() + 63) / 64, 0);
    Int3 lo{cells[0], cells[1], cells[2]}, hi{-1, -1, -1};
    size_t n = 0;
    for (index_t k = 0; k < cells[2]; ++k)
      for (index_t j = 0; j < cells[1]; ++j)
        for (index_t i = 0; i < cells[0]; ++i, ++n) {
          if (!solid[n]) continue;
          bits_[n >> 6] |= std::uint64_t(1) << (n & 63);
          ++count_;
          const Int3 c{i, j, k};
          for (size_t d = 0; d < 3; ++d) {
            lo[d] = std::min(lo[d], c[d]);
            hi[d] = std::max(hi[d], c[d]);
          }
        }
    if (count_ > 0)
      for (size_t d = 0; d < 3; ++d) {
        box_.lo[d] = static_cast<double>(lo[d]) * dx;
        box_.hi[d] = static_cast<double>(hi[d] + 1) * dx;
      }
  }

  bool inside(const Real3& p) const override {
    Int3 c{0, 0, 0};
    for (size_t d = 0; d < static_cast<size_t>(dims_); ++d) {
      const double x = std::floor(p[d] / dx_);
      if (!(x >= 0.0 && x < static_cast<double>(cells_[d]))) return false;  // also false for NaN
      c[d] = static_cast<index_t>(x);
    }
    const auto n = static_cast<size_t>((c[2] * cells_[1] + c[1]) * cells_[0] + c[0]);
    return (bits_[n >> 6] >> (n & 63)) & 1U;
  }
  double crossing(const Real3&, const Real3&) const override { return -1.0; }
  geometry::Aabb bounds() const override { return box_; }
  std::string describe() const override { return what_ + " (" + std::to_string(count_) + " solid cells)"; }

 private:
  std::string what_;
  int dims_;
  Int3 cells_;
  double dx_;
  std::vector<std::uint64_t> bits_;
  index_t count_ = 0;
  geometry::Aabb box_;
};

}  // namespace

geometry::ShapePtr read_mask(const std::string& path, const std::string& dataset, int dims, Int3 cells,
                             double dx) {
  const std::string where = "mask dataset '" + dataset + "' of HDF5 file '" + path + "'";
  const Block grid = Block::whole(dims, cells);
  const std::string bad = grid.check();
  if (!bad.empty()) throw Error("cannot read " + where + ": " + bad);
  if (!(std::isfinite(dx) && dx > 0.0)) throw Error("cannot read " + where + ": dx must be positive");

  std::unique_ptr<FieldReader> opened;
  try {
    opened = std::make_unique<FieldReader>(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (reading the mask dataset '" + dataset + "')");
  }
  const FieldReader& reader = *opened;
  if (!reader.has_dataset(dataset))
    throw InputError("HDF5 file '" + path + "' has no mask dataset '" + dataset + "'");
  const std::vector<index_t> want = grid.file_shape(0);
  const std::vector<index_t> have = reader.shape(dataset);
  if (have != want) {
    static const char* order[] = {"(nx)", "(ny, nx)", "(nz, ny, nx)"};
    throw InputError(where + " has shape " + shape_text(have) + ", the grid is " + shape_text(want) + " " +
                     order[dims - 1] + ", z slowest as in eddy's field files");
  }
  if (!reader.is_integer(dataset))
    throw InputError(where +
                     " does not hold integers: a mask is uint8 (or any integer type), 0 = fluid, "
                     "nonzero = solid");
  const Array<std::uint8_t> solid = reader.read_nonzero(dataset);
  return std::make_unique<MaskShape>("mask " + path + ":" + dataset, dims, cells, dx, solid.data);
}

}  // namespace eddy::io
