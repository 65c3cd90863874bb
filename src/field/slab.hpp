#pragma once
/// Slab decomposition for distributed FFTs, as solvers see it: a global transpose of arrays between
/// two slab layouts, plus the reductions diagnostics need. parallel/transpose.hpp implements it with
/// MPI (injected by the app); LocalSlabExchange here is the single-rank case. Solvers never see MPI.
///
/// The arrays are 3D, [a][b][c] with c fastest, of elements of `elem_bytes` bytes:
///   a-slabs: a rank holds the a-planes of its block (BlockSplit of na) and every b;
///   b-slabs: a rank holds every a and the b-rows of its block (BlockSplit of nb).
/// The 3D spectral solver uses [z][y][x/2+1] (a = z, b = y, c = x), the 2D one [y][x/2+1][1].
#include <algorithm>
#include <cstddef>

#include "backend/backend.hpp"
#include "core/types.hpp"

namespace eddy::field {

/// The contiguous split of n items over `parts`: the first n % parts parts get one item more.
struct BlockSplit {
  static index_t count(index_t n, int parts, int p) { return n / parts + (p < n % parts ? 1 : 0); }
  static index_t start(index_t n, int parts, int p) {
    return p * (n / parts) + std::min<index_t>(p, n % parts);
  }
};

/// The global shape of a transposed array.
struct SlabShape {
  index_t na = 1, nb = 1, nc = 1;  ///< global extents (c fastest)
  std::size_t elem_bytes = 8;      ///< bytes per element
};

/// Transposes and reductions over the ranks of a slab decomposition. Collective: every rank calls each
/// function in the same order. Arrays are device memory; `fields` arrays are transposed at once, each
/// `stride` elements after the previous one; source and destination must not overlap.
class SlabExchange {
 public:
  virtual ~SlabExchange() = default;
  virtual int ranks() const = 0;
  virtual int rank() const = 0;
  /// a-slabs (in) -> b-slabs (out).
  virtual void a_to_b(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
                      int fields) = 0;
  /// b-slabs (in) -> a-slabs (out).
  virtual void b_to_a(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
                      int fields) = 0;
  /// Element-wise sum of v[0..n) over the ranks, in place; the same result on every rank.
  virtual void sum(double* v, int n) = 0;
  /// Maximum of v over the ranks.
  virtual double max(double v) = 0;
  /// "local", "mpi (host-staged)": for the log.
  virtual const char* name() const = 0;
};

/// One rank: both layouts are the whole array, so a transpose is a copy and reductions are identities.
class LocalSlabExchange final : public SlabExchange {
 public:
  int ranks() const override { return 1; }
  int rank() const override { return 0; }
  void a_to_b(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override {
    copy(s, in, in_stride, out, out_stride, fields);
  }
  void b_to_a(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
              int fields) override {
    copy(s, in, in_stride, out, out_stride, fields);
  }
  void sum(double*, int) override {}
  double max(double v) override { return v; }
  const char* name() const override { return "local"; }

 private:
  static void copy(const SlabShape& s, const void* in, index_t in_stride, void* out, index_t out_stride,
                   int fields) {
    const std::size_t bytes = static_cast<std::size_t>(s.na * s.nb * s.nc) * s.elem_bytes;
    for (int f = 0; f < fields; ++f)
      backend::copy_on_device(
          static_cast<char*>(out) + static_cast<std::size_t>(f * out_stride) * s.elem_bytes,
          static_cast<const char*>(in) + static_cast<std::size_t>(f * in_stride) * s.elem_bytes, bytes);
  }
};

}  // namespace eddy::field
