// The process grid eddy picks when parallel.ranks is not given (parallel/decomposition.hpp).
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "parallel/decomposition.hpp"

namespace {

using eddy::Int3;
using eddy::parallel::Decomposition;

Int3 grid_of(int dims, const Int3& cells, int ranks) {
  return Decomposition::make(dims, cells, {}, ranks, 0).ranks;
}

}  // namespace

// MPI_Dims_create's counts, largest along the slowest axis: blocks keep whole x rows, exchange contiguous
// planes and wrap a periodic x themselves.
TEST(Decomposition, DefaultSplitsTheSlowestAxisFirst) {
  EXPECT_EQ(grid_of(3, {64, 64, 64}, 1), (Int3{1, 1, 1}));
  EXPECT_EQ(grid_of(3, {64, 64, 64}, 2), (Int3{1, 1, 2}));
  EXPECT_EQ(grid_of(3, {64, 64, 64}, 4), (Int3{1, 2, 2}));
  EXPECT_EQ(grid_of(3, {64, 64, 64}, 8), (Int3{2, 2, 2}));
  EXPECT_EQ(grid_of(3, {64, 64, 64}, 12), (Int3{2, 2, 3}));
  EXPECT_EQ(grid_of(2, {64, 64, 1}, 2), (Int3{1, 2, 1}));
  EXPECT_EQ(grid_of(2, {64, 64, 1}, 6), (Int3{2, 3, 1}));
}

TEST(Decomposition, RequestedRanksAreKeptAsGiven) {
  EXPECT_EQ(Decomposition::make(3, {64, 64, 64}, {2, 1, 1}, 2, 0).ranks, (Int3{2, 1, 1}));
  EXPECT_EQ(Decomposition::make(3, {64, 64, 64}, {1, 4, 1}, 4, 3).ranks, (Int3{1, 4, 1}));
}

TEST(Decomposition, TwoRanksSplitZIntoWholePlanes) {
  for (int r = 0; r < 2; ++r) {
    const Decomposition d = Decomposition::make(3, {48, 32, 17}, {}, 2, r);
    EXPECT_EQ(d.mine().extent[0], 48);
    EXPECT_EQ(d.mine().extent[1], 32);
    EXPECT_EQ(d.mine().extent[2], r == 0 ? 9 : 8);  // uneven: the first N % n ranks get one more
    EXPECT_EQ(d.mine().offset[2], r == 0 ? 0 : 9);
  }
}

TEST(Decomposition, AThinAxisIsLeftToTheOthers) {
  EXPECT_EQ(grid_of(3, {64, 64, 1}, 2), (Int3{1, 2, 1}));  // one z plane: y takes the split
  EXPECT_EQ(grid_of(3, {64, 64, 2}, 8), (Int3{2, 2, 2}));  // 2 x 2 x 2 fits
  EXPECT_EQ(grid_of(3, {64, 64, 3}, 8), (Int3{2, 2, 2}));
  EXPECT_EQ(grid_of(3, {64, 2, 64}, 12), (Int3{2, 2, 3}));  // y holds 2 at most: z 3, x 2
}

TEST(Decomposition, MoreRanksThanCellsIsAnInputError) {
  EXPECT_THROW(Decomposition::make(3, {2, 2, 1}, {}, 8, 0), eddy::InputError);
  EXPECT_THROW(Decomposition::make(3, {64, 64, 64}, {1, 1, 128}, 128, 0), eddy::InputError);
}
