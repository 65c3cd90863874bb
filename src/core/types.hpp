#pragma once
/// Basic types shared by every layer of eddy.
#include <array>
#include <cstdint>

namespace eddy {

using index_t = std::int64_t;  ///< cell and array indices (grids beyond 2^31 cells are expected)

/// A small fixed-size integer vector: cell counts, offsets, rank grids (unused components are 1 or 0).
using Int3 = std::array<index_t, 3>;
/// A small fixed-size real vector in physical units (host side).
using Real3 = std::array<double, 3>;

/// Storage precision of the main solver fields; arithmetic is FP64 for fp64, FP32 otherwise.
enum class Precision { fp64, fp32, fp16 };

}  // namespace eddy
