// LBM ghost exchange on 1-4 ranks: every population of every ghost link is filled with exactly the value
// of its image (forward), and goes back exactly to its image (reverse), for periodic, wall and mixed
// boundaries, 2D and 3D, uneven boxes, and every process-grid shape of the rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <string>

#include "field/exchange.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lattice.hpp"
#include "parallel/comm.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/halo.hpp"
#include "tests/support/transports.hpp"

namespace eddy {
namespace {

/// Value standing for population j of global cell c.
double code(const index_t (&c)[3], const Int3& n, int j, int q) {
  return double(((c[2] * n[1] + c[1]) * n[0] + c[0]) * q + j + 1);
}

/// All process grids of `size` ranks in `dims` directions.
std::vector<std::vector<long>> shapes(int size, int dims) {
  std::vector<std::vector<long>> out;
  for (long a = 1; a <= size; ++a)
    for (long b = 1; a * b <= size; ++b) {
      if (dims == 2) {
        if (a * b == size) out.push_back({a, b});
        continue;
      }
      if (size % (a * b) == 0) out.push_back({a, b, size / (a * b)});
    }
  return out;
}

template <class L>
void check(const Int3& global, const std::array<lbm::FaceKind, 6>& faces, const std::vector<long>& ranks,
           const std::string& mode = "mpi", int rounds = 1) {
  const parallel::Comm comm;
  const auto d = parallel::Decomposition::make(L::d, global, ranks, comm);
  lbm::Setup s;
  s.dims = L::d;
  s.global = global;
  s.cells = d.mine().extent;
  s.offset = d.mine().offset;
  s.rank = comm.rank();
  s.faces = faces;
  for (const auto& b : d.boxes) s.boxes.push_back({b.offset, b.extent});
  const lbm::GhostLayout<L> layout(s);
  const field::Pattern pattern = layout.pattern();
  const field::PaddedGrid& g = layout.grid();
  const index_t N = g.n_padded;

  // Interior slots hold their code, everything else -1.
  std::vector<double> h(static_cast<std::size_t>(L::q * N), -1.0);
  for (index_t z = 0; z < g.nz; ++z)
    for (index_t y = 0; y < g.ny; ++y)
      for (index_t x = 0; x < g.nx; ++x) {
        const index_t c[3] = {x + s.offset[0], y + s.offset[1], z + s.offset[2]};
        for (int j = 0; j < L::q; ++j)
          h[static_cast<std::size_t>(j * N + g.at(x, y, z))] = code(c, global, j, L::q);
      }
  backend::DeviceArray<double> f;
  const std::unique_ptr<field::Exchanger> exchanger =
      parallel::make_exchanger(mode, comm);  // local on one rank
  field::Exchanger& ex = *exchanger;
  // Several rounds through one exchanger: `auto` tries each transport in turn on its first rounds.
  for (int round = 0; round < rounds; ++round) {
    f.from_host(h);

    ex.exchange(f.data(), sizeof(double), pattern, field::Direction::forward);
    std::vector<double> after = f.to_host();
    std::vector<bool> linked(h.size(), false);
    long links = 0;
    layout.for_each_ghost_link(s.rank, [&](index_t cell, int j, const index_t(&img)[3]) {
      const std::size_t e = static_cast<std::size_t>(j * N + cell);
      linked[e] = true;
      ++links;
      EXPECT_EQ(after[e], code(img, global, j, L::q))
          << "rank " << s.rank << " ghost cell " << cell << " slot " << j;
    });
    for (std::size_t e = 0; e < h.size(); ++e) {
      if (!linked[e]) {
        ASSERT_EQ(after[e], h[e]) << "rank " << s.rank << ": entry " << e << " changed";
      }
    }

    // Reverse: each ghost link carries minus its image's code back; every interior entry that is some
    // ghost's image receives exactly that, the rest stays.
    for (std::size_t e = 0; e < h.size(); ++e)
      if (linked[e]) after[e] = -after[e];
    f.from_host(after);
    ex.exchange(f.data(), sizeof(double), pattern, field::Direction::reverse);
    const std::vector<double> back = f.to_host();
    for (std::size_t e = 0; e < h.size(); ++e) {
      if (linked[e]) continue;
      ASSERT_TRUE(back[e] == h[e] || back[e] == -h[e]) << "rank " << s.rank << ": entry " << e;
    }
    // Count of negated interior entries summed over ranks = ghost links summed over ranks.
    long negated = 0;
    for (std::size_t e = 0; e < h.size(); ++e)
      if (h[e] > 0 && back[e] < 0) ++negated;
    EXPECT_EQ(comm.sum(negated), comm.sum(links));
  }
}

using lbm::FaceKind;
const std::array<FaceKind, 6> periodic{FaceKind::periodic, FaceKind::periodic, FaceKind::periodic,
                                       FaceKind::periodic, FaceKind::periodic, FaceKind::periodic};
const std::array<FaceKind, 6> walls{FaceKind::wall,        FaceKind::wall, FaceKind::wall,
                                    FaceKind::moving_wall, FaceKind::wall, FaceKind::wall};
const std::array<FaceKind, 6> mixed{FaceKind::periodic,    FaceKind::periodic, FaceKind::wall,
                                    FaceKind::moving_wall, FaceKind::periodic, FaceKind::periodic};

TEST(LbmHalo, D2Q9EveryShape) {
  const int size = parallel::Comm().size();
  for (const auto& r : shapes(size, 2))
    for (const auto& faces : {periodic, walls, mixed}) check<lbm::D2Q9>({7, 5, 1}, faces, r);
}

TEST(LbmHalo, D3Q19EveryShape) {
  const int size = parallel::Comm().size();
  for (const auto& r : shapes(size, 3))
    for (const auto& faces : {periodic, walls, mixed}) check<lbm::D3Q19>({5, 6, 4}, faces, r);
}

// The same through every other transport this build runs (tests/support/transports.hpp): MPI on the
// arrays as they are ('mpi-gpu'; on the CPU backend the host arrays), NCCL.
TEST(LbmHalo, D3Q19EveryTransport) {
  const int size = parallel::Comm().size();
  for (const std::string& mode : test::available_transports())
    for (const auto& r : shapes(size, 3)) check<lbm::D3Q19>({5, 6, 4}, mixed, r, mode);
}

// auto over enough rounds to try every transport and settle on one: every round stays exact.
TEST(LbmHalo, AutoChoosesATransportAndStaysExact) {
  const int size = parallel::Comm().size();
  check<lbm::D3Q19>({5, 6, 4}, mixed, shapes(size, 3).back(), "auto", 24);
}

TEST(LbmHalo, D3Q27EveryShape) {
  const int size = parallel::Comm().size();
  for (const auto& r : shapes(size, 3)) check<lbm::D3Q27>({4, 5, 6}, mixed, r);
}

}  // namespace
}  // namespace eddy

int main(int argc, char** argv) {
  eddy::parallel::MpiSession mpi(&argc, &argv);
  // One GPU per rank, as eddy picks it (NCCL refuses two ranks on one device).
  eddy::backend::initialize(eddy::parallel::Comm().node_local_rank());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
