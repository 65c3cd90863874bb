#pragma once
/// parallel_for / parallel_reduce on the CPU: OpenMP threads, static schedule.
///
/// Reductions split [0, n) into reduce_blocks contiguous blocks whatever the thread count, reduce each
/// block in index order and combine the blocks' results in block order: a result is bitwise the same on
/// 1, 2 or 64 threads.
#include <omp.h>

#include <algorithm>
#include <vector>

namespace eddy::backend {

/// Add v[k] to p[target(k)] atomically for each k in [0, N) with target(k) >= 0 (integers: the sums do
/// not depend on the order of the additions; the CUDA backend's version sums a warp's values first).
template <int N, class Target>
inline void atomic_add_grouped(long long* p, const int (&v)[N], const Target& target) {
  for (int k = 0; k < N; ++k) {
    const int t = target(k);
    if (t >= 0 && v[k] != 0) __atomic_fetch_add(p + t, static_cast<long long>(v[k]), __ATOMIC_RELAXED);
  }
}

/// Run f(i) for i in [0, n).
template <class F>
void parallel_for(const char* /*label*/, index_t n, F f) {
#pragma omp parallel for simd schedule(static)
  for (index_t i = 0; i < n; ++i) f(i);
}

/// Run f(x, y, z) for every cell of an nx x ny x nz box, x fastest (rows split over the threads; the
/// launch shape is a GPU matter).
template <BoxLaunch = BoxLaunch::per_cell, int = 0, class F>
void parallel_for_box(const char* /*label*/, index_t nx, index_t ny, index_t nz, F f) {
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t z = 0; z < nz; ++z)
    for (index_t y = 0; y < ny; ++y)
#pragma omp simd
      for (index_t x = 0; x < nx; ++x) f(x, y, z);
}

/// The most cells of a row that parallel_for_row_chunks hands over at once: on the CPU a chunk's cells are
/// the lanes of a vector loop (EDDY_SIMD) in the caller's code; 32 cells of 32-bit data fill four AVX-512
/// or eight SSE registers, and a D3Q27 cell's populations in FP64 for 32 cells take 6.9 KB of the stack,
/// well inside L1. The GPU backends hand over one cell a thread (row_chunk 1).
inline constexpr index_t row_chunk = 32;

/// Whether a vector loop over a chunk's lanes with a condition on each lane's load and store compiles to
/// masked vector accesses: where the instruction set has them (AVX2, AVX-512; EDDY_CPU_ARCH).
#if defined(__AVX2__) || defined(__AVX512F__)
inline constexpr bool row_chunk_masked = true;
#else
inline constexpr bool row_chunk_masked = false;
#endif

/// Run f(x0, count, y, z) over the rows of an nx x ny x nz box in chunks of at most row_chunk consecutive
/// cells x0 .. x0 + count - 1 (rows split over the threads, as parallel_for_box). For code that stages a
/// chunk's data in arrays over its cells and computes on them in a vector loop. The launch shape is a GPU
/// matter (parallel_for_box).
template <BoxLaunch = BoxLaunch::per_cell, class F>
void parallel_for_row_chunks(const char* /*label*/, index_t nx, index_t ny, index_t nz, F f) {
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t z = 0; z < nz; ++z)
    for (index_t y = 0; y < ny; ++y)
      for (index_t x0 = 0; x0 < nx; x0 += row_chunk) f(x0, nx - x0 < row_chunk ? nx - x0 : row_chunk, y, z);
}

/// Run update(x, y, z, view) for every cell of an nx x ny x nz box, where `view` (TileView) holds the
/// values stage(x', y', z', s) put into s for the cell and its neighbours (|x' - x|, |y' - y| <= 1, and
/// |z' - z| <= 1 with `HaloZ`): for values several cells use, each computed about once instead of once
/// per cell that reads it. The box is cut into tiles; stage runs for each cell of a tile and of its halo
/// that lies within the box grown by one cell (x' from -1 to nx, ...; z' from -1 to nz with HaloZ, else 0
/// to nz - 1), so a cell on the halo of two tiles is staged twice, and it may leave s unset for a cell
/// that no update reads. Here the tiles are split over the threads, each staging into a buffer of its
/// own; a tile is 64 x 8 x 8 cells (64 x 8 in 2D), whose staged values (about 6,600 of them, 450 KB for
/// 68 bytes each) stay in a core's L2 while it updates the tile, and whose halo adds 60 % to the stage
/// calls (the GPU backend's tiles are planes of a column a block marches through: gpu_tile_shape).
template <class S, bool HaloZ, class Stage, class Update>
void parallel_for_tiles(const char* /*label*/, index_t nx, index_t ny, index_t nz, Stage stage,
                        Update update) {
  if (nx <= 0 || ny <= 0 || nz <= 0) return;
  constexpr index_t cx = 64, cy = 8, cz = HaloZ ? 8 : 1, hz = HaloZ ? 1 : 0;
  constexpr index_t sx = cx + 2, sy = cy + 2, sz = cz + 2 * hz;
  const index_t tx = (nx + cx - 1) / cx, ty = (ny + cy - 1) / cy, tz = (nz + cz - 1) / cz;
#pragma omp parallel
  {
    std::vector<S> staged(static_cast<std::size_t>(sx * sy * sz));
#pragma omp for collapse(3) schedule(static)
    for (index_t bz = 0; bz < tz; ++bz)
      for (index_t by = 0; by < ty; ++by)
        for (index_t bx = 0; bx < tx; ++bx) {
          const index_t x0 = bx * cx, y0 = by * cy, z0 = bz * cz;
          const index_t xe = std::min(x0 + cx, nx), ye = std::min(y0 + cy, ny), ze = std::min(z0 + cz, nz);
          for (index_t z = z0 - hz; z < ze + hz; ++z)
            for (index_t y = y0 - 1; y <= ye; ++y)
              for (index_t x = x0 - 1; x <= xe; ++x)
                stage(x, y, z,
                      staged[static_cast<std::size_t>((x - x0 + 1) +
                                                      sx * ((y - y0 + 1) + sy * (z - z0 + hz)))]);
          for (index_t z = z0; z < ze; ++z)
            for (index_t y = y0; y < ye; ++y)
              for (index_t x = x0; x < xe; ++x) {
                const S* own = staged.data() + ((x - x0 + 1) + sx * ((y - y0 + 1) + sy * (z - z0 + hz)));
                update(x, y, z, TileView<S>{own - sx * sy * hz, own, own + sx * sy * hz, int(sx)});
              }
        }
  }
}

/// The blocks a CPU reduction splits its range into (fewer where the range is shorter): a fixed number, so
/// the partition, and with it the rounding, does not depend on the threads. With 1024 a thread gets at
/// most one block above an even share (10 % more work at 113 threads, none at 64 or 128), and the
/// partials take a few KB whatever the grid.
inline constexpr index_t reduce_blocks = 1024;

/// Reduce f(i) for i in [0, n) with op (associative), starting from identity.
template <class T, class F, class Op>
T parallel_reduce(const char* /*label*/, index_t n, T identity, F f, Op op) {
  if (n <= 0) return identity;
  const index_t blocks = n < reduce_blocks ? n : reduce_blocks;
  std::vector<T> partial(static_cast<std::size_t>(blocks), identity);
#pragma omp parallel for schedule(static)
  for (index_t b = 0; b < blocks; ++b) {
    const index_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
    T acc = identity;
    for (index_t i = lo; i < hi; ++i) acc = op(acc, f(i));
    partial[static_cast<std::size_t>(b)] = acc;
  }
  T r = identity;
  for (const T& p : partial) r = op(r, p);
  return r;
}

}  // namespace eddy::backend
