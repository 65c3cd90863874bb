// The probes' interpolation stencils (app/series_output.hpp): the cells around a point and their
// weights at cell centres, between them, next to walls and across periodic axes.
#include <gtest/gtest.h>

#include <array>

#include "app/series_output.hpp"

TEST(ProbeStencil, CellCentresMidpointsWallsAndWrapping) {
  using eddy::app::probe_stencil;
  const eddy::Int3 cells{8, 4, 1};
  const eddy::Real3 dx{0.125, 0.25, 1.0};
  const std::array<bool, 3> walls{false, false, false}, periodic{true, true, false};
  // At the centre of cell (3, 1): that cell alone, weight 1.
  auto s = probe_stencil({3.5 * 0.125, 1.5 * 0.25}, 2, cells, dx, walls);
  EXPECT_EQ(s.corners, 4);
  EXPECT_EQ(s.weight[0], 1.0);
  for (int c = 1; c < 4; ++c) EXPECT_EQ(s.weight[c], 0.0);
  EXPECT_EQ(s.cell[0], (eddy::Int3{3, 1, 0}));
  // Half-way between four centres: a quarter each, the corners in bit order (x is bit 0).
  s = probe_stencil({4.0 * 0.125, 2.0 * 0.25}, 2, cells, dx, walls);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(s.weight[c], 0.25);
  EXPECT_EQ(s.cell[0], (eddy::Int3{3, 1, 0}));
  EXPECT_EQ(s.cell[1], (eddy::Int3{4, 1, 0}));
  EXPECT_EQ(s.cell[2], (eddy::Int3{3, 2, 0}));
  EXPECT_EQ(s.cell[3], (eddy::Int3{4, 2, 0}));
  // Between a wall and the first centre, and on the far wall: the nearest interior cells.
  s = probe_stencil({0.0, 1.0}, 2, cells, dx, walls);
  EXPECT_EQ(s.cell[0], (eddy::Int3{0, 3, 0}));
  EXPECT_EQ(s.weight[0], 1.0);
  // A periodic axis wraps: x = dx / 4 lies between the last centre (weight 1/4) and the first (3/4).
  s = probe_stencil({0.25 * 0.125, 1.5 * 0.25}, 2, cells, dx, periodic);
  EXPECT_EQ(s.cell[0][0], 7);
  EXPECT_EQ(s.cell[1][0], 0);
  EXPECT_EQ(s.weight[0], 0.25);
  EXPECT_EQ(s.weight[1], 0.75);
  s = probe_stencil({1.0, 1.0}, 2, cells, dx, periodic);  // x = L: half-way between the last and the first
  EXPECT_EQ(s.cell[0][0], 7);
  EXPECT_EQ(s.cell[1][0], 0);
  EXPECT_EQ(s.cell[0][1], 3);
  EXPECT_EQ(s.cell[2][1], 0);
  EXPECT_EQ(s.weight[3], 0.25);
  // 3D: eight corners whose weights sum to 1.
  s = probe_stencil({0.3, 0.4, 0.55}, 3, {8, 4, 2}, {0.125, 0.25, 0.5}, walls);
  EXPECT_EQ(s.corners, 8);
  double sum = 0.0;
  for (int c = 0; c < 8; ++c) sum += s.weight[c];
  EXPECT_NEAR(sum, 1.0, 1e-15);
}
