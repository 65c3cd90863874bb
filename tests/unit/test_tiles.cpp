// backend::parallel_for_tiles: every cell of the box updated exactly once, with the values staged for
// itself and each of its neighbours (the halo of one cell, along z only where asked), staged from the
// right cells, on boxes that are not multiples of any tile and on boxes smaller than one tile.
#include <gtest/gtest.h>

#include <vector>

#include "backend/parallel.hpp"

namespace eddy {
namespace {

/// What a stage call leaves: the coordinates it was called with. 68 bytes, the size of a D3Q19 FP32
/// relaxed state, so that the GPU takes the tile shape the LBM's moment update takes.
struct Staged {
  int x, y, z, pad[14];
};
static_assert(sizeof(Staged) == 68);

// The tile shapes fit the 48 KiB of shared memory a block takes without asking.
static_assert(backend::gpu_tile_shape(68, true).staged(true) * 68 <= 48 * 1024);
static_assert(backend::gpu_tile_shape(136, true).staged(true) * 136 <= 48 * 1024);
static_assert(backend::gpu_tile_shape(136, false).staged(false) * 136 <= 48 * 1024);
static_assert(backend::gpu_tile_shape(68, true).x == 32);  // a warp is a row: no bank conflicts

/// Run a tile launch over nx x ny x nz and return, per cell, how many of its 27 (9) staged neighbours
/// held the coordinates of that neighbour, plus 1000 for every time the cell was updated.
template <bool HaloZ>
std::vector<int> run(index_t nx, index_t ny, index_t nz) {
  backend::DeviceArray<int> hits(static_cast<std::size_t>(nx * ny * nz));
  int* h = hits.data();
  backend::parallel_for_tiles<Staged, HaloZ>(
      "test::tiles", nx, ny, nz,
      [=] EDDY_DEVICE(index_t x, index_t y, index_t z, Staged & s) {
        s.x = int(x), s.y = int(y), s.z = int(z);
      },
      [=] EDDY_DEVICE(index_t x, index_t y, index_t z, const backend::TileView<Staged>& v) {
        int ok = 0;
        const int hz = HaloZ ? 1 : 0;
        for (int dz = -hz; dz <= hz; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const Staged& s = v.at(dx, dy, dz);
              ok += s.x == x + dx && s.y == y + dy && s.z == z + dz;
            }
        h[x + nx * (y + ny * z)] += 1000 + ok;
      });
  return hits.to_host();
}

TEST(Tiles, EveryCellOnceWithItsNeighboursStaged3D) {
  for (const auto& n : {std::vector<index_t>{70, 13, 11}, {5, 3, 2}, {1, 1, 1}, {130, 9, 17}}) {
    const std::vector<int> hits = run<true>(n[0], n[1], n[2]);
    for (std::size_t k = 0; k < hits.size(); ++k)
      ASSERT_EQ(hits[k], 1000 + 27) << n[0] << "x" << n[1] << "x" << n[2] << " cell " << k;
  }
}

TEST(Tiles, EveryCellOnceWithItsNeighboursStaged2D) {
  for (const auto& n : {std::vector<index_t>{70, 13}, {3, 2}, {1, 1}, {257, 33}}) {
    const std::vector<int> hits = run<false>(n[0], n[1], 1);
    for (std::size_t k = 0; k < hits.size(); ++k)
      ASSERT_EQ(hits[k], 1000 + 9) << n[0] << "x" << n[1] << " cell " << k;
  }
}

}  // namespace
}  // namespace eddy
