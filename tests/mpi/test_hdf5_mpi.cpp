// io/hdf5 on several ranks (ctest hdf5_np1, hdf5_np2, hdf5_np4): fields whose values encode their
// global index are written from Cartesian decompositions (uneven, and with empty ranks), read back
// and checked value by value; checksums must not depend on the rank count; failures on one rank
// must reach every rank. Every write path (gather, per_rank, collective with a parallel HDF5) gives the
// same datasets; per_rank files read back on other rank counts, and its checkpoints rotate with their
// rank files. Run: mpirun -n N ./eddy_mpi_hdf5_tests (from a directory all ranks share).
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/field_reader.hpp"
#include "io/hdf5/xdmf.hpp"
#include "parallel/comm.hpp"

namespace fs = std::filesystem;
using eddy::index_t;
using eddy::Int3;
using eddy::io::Block;
using eddy::io::Checksum;
using eddy::io::FieldFile;
using eddy::io::FieldReader;
using eddy::io::WriteMode;
using eddy::parallel::Comm;

namespace {

Comm world() { return Comm(MPI_COMM_WORLD); }

/// A directory shared by all ranks (under the working directory), removed at the end.
class SharedDir {
 public:
  SharedDir() {
    const Comm c = world();
    std::string name;
    if (c.root()) {
      const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
      name = "hdf5_mpi_np" + std::to_string(c.size()) + "_" + std::to_string(::getpid()) + "_" + info->name();
      for (char& ch : name)
        if (ch == '/') ch = '_';
      fs::remove_all(name);
      fs::create_directories(name);
    }
    path_ = fs::absolute(c.broadcast(name));
    c.barrier();
  }
  ~SharedDir() {
    world().barrier();
    if (world().root()) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  std::string operator/(const std::string& f) const { return (path_ / f).string(); }

 private:
  fs::path path_;
};

/// This rank's box of `global` on a Cartesian grid of ranks `pgrid` (uneven splits: n*c/p).
Block box_of(int dims, const Int3& global, const Int3& pgrid, int rank) {
  Block b;
  b.dims = dims;
  b.global = global;
  const Int3 coord{rank % pgrid[0], (rank / pgrid[0]) % pgrid[1], rank / (pgrid[0] * pgrid[1])};
  for (size_t d = 0; d < 3; ++d) {
    const index_t lo = global[d] * coord[d] / pgrid[d];
    const index_t hi = global[d] * (coord[d] + 1) / pgrid[d];
    b.offset[d] = lo;
    b.extent[d] = hi - lo;
  }
  return b;
}

/// MPI_Dims_create over the used directions.
Int3 process_grid(int dims, int ranks) {
  int p[3] = {0, 0, 0};
  MPI_Dims_create(ranks, dims, p);
  Int3 g{1, 1, 1};
  for (int d = 0; d < dims; ++d) g[static_cast<size_t>(d)] = p[d];
  return g;
}

/// Distinct, exactly representable in float and double: the global position (x, y, z, component).
double code(index_t i, index_t j, index_t k, int c) {
  return static_cast<double>(i) + 64.0 * j + 4096.0 * k + 0.25 * c + 0.125;
}

template <class T>
std::vector<T> make_field(const Block& b, int ncomp) {
  const int nc = ncomp > 0 ? ncomp : 1;
  std::vector<T> v;
  for (index_t k = 0; k < b.extent[2]; ++k)
    for (index_t j = 0; j < b.extent[1]; ++j)
      for (index_t i = 0; i < b.extent[0]; ++i)
        for (int c = 0; c < nc; ++c)
          v.push_back(static_cast<T>(code(b.offset[0] + i, b.offset[1] + j, b.offset[2] + k, c)));
  return v;
}

std::vector<WriteMode> modes() {
  std::vector<WriteMode> m{WriteMode::gather, WriteMode::per_rank};
  if (eddy::io::hdf5_is_parallel()) m.push_back(WriteMode::collective);
  return m;
}

const char* mode_name(WriteMode m) { return eddy::io::to_string(m); }

/// Write, read back and check one decomposition; returns the stored checksums (on every rank).
template <class T>
std::vector<std::uint64_t> round_trip(const SharedDir& dir, const Block& b, WriteMode mode) {
  const Comm c = world();
  const std::string path =
      dir / (std::string("f_") + mode_name(mode) + "_" + std::to_string(b.dims) + "d.h5");
  const auto s = make_field<T>(b, 0);
  const auto v = make_field<T>(b, b.dims);
  const auto q = make_field<T>(b, 5);
  {
    FieldFile f = FieldFile::create(path, b, c, mode);
    EXPECT_EQ(f.collective(), mode == WriteMode::collective);
    f.write_scalar("scalar", s.data(), Checksum::on);
    f.write_vector("vector", v.data(), b.dims, Checksum::on);
    f.write_array("groups/q", q.data(), b, 5, Checksum::on);
    f.set_attribute("ranks", c.size());
    f.commit();
  }
  const Block whole = Block::whole(b.dims, b.global);
  std::vector<std::uint64_t> sums;
  // Rank 0 reads whole datasets and checks every value against the formula.
  if (c.root()) {
    FieldReader r(path);
    EXPECT_EQ(r.value_bytes("scalar"), static_cast<int>(sizeof(T)));
    for (const auto& [name, nc] :
         std::vector<std::pair<std::string, int>>{{"scalar", 0}, {"vector", b.dims}, {"groups/q", 5}}) {
      const auto a = r.read<T>(name);
      EXPECT_EQ(a.shape, whole.file_shape(nc)) << name;
      EXPECT_EQ(a.data, make_field<T>(whole, nc)) << name;
      EXPECT_TRUE(r.verify_checksum(name)) << name;
    }
  }
  // Every rank reads its own box back, and the distributed checksum verification agrees.
  FieldReader r(path);
  EXPECT_EQ(r.read_block<T>("scalar", b, 0), s);
  EXPECT_EQ(r.read_block<T>("vector", b, b.dims), v);
  EXPECT_EQ(r.read_block<T>("groups/q", b, 5), q);
  EXPECT_TRUE(r.verify_checksum("vector", b, b.dims, c));
  for (const auto& [name, nc] :
       std::vector<std::pair<std::string, int>>{{"scalar", 0}, {"vector", b.dims}, {"groups/q", 5}}) {
    const std::uint64_t stored = r.attribute_u64("checksum", name);
    // The checksum of the global array computed on one rank, from its definition:
    const auto all = make_field<T>(whole, nc);
    EXPECT_EQ(stored, eddy::io::block_checksum(all.data(), whole, nc)) << name;
    sums.push_back(stored);
  }
  return sums;
}

// Checksums of the fields below, fixed: they must not depend on the rank count, the decomposition
// or the write path, and must not change between versions (old checkpoints would stop verifying).
// Regenerate only with a new checksum scheme name (a failing EXPECT_EQ prints the new values).
const std::vector<std::uint64_t> golden_3d_double{14322347047185455038ULL, 17007434504097721905ULL,
                                                  12479446534243988454ULL};
const std::vector<std::uint64_t> golden_3d_float{12951037713542649896ULL, 6080237835210155186ULL,
                                                 2392577405604185170ULL};
const std::vector<std::uint64_t> golden_2d_double{6059827192833380817ULL, 5178508313617706284ULL,
                                                  6470996794230505203ULL};

}  // namespace

TEST(Hdf5Mpi, RoundTrip3D) {
  SharedDir dir;
  const Comm c = world();
  const Int3 global{11, 7, 5};  // odd sizes: uneven boxes for 2 and 4 ranks
  const Block b = box_of(3, global, process_grid(3, c.size()), c.rank());
  for (WriteMode m : modes()) {
    SCOPED_TRACE(mode_name(m));
    const auto sd = round_trip<double>(dir, b, m);
    const auto sf = round_trip<float>(dir, b, m);
    EXPECT_EQ(sd, golden_3d_double);
    EXPECT_EQ(sf, golden_3d_float);
  }
}

TEST(Hdf5Mpi, RoundTrip2D) {
  SharedDir dir;
  const Comm c = world();
  const Block b = box_of(2, {9, 7, 1}, process_grid(2, c.size()), c.rank());
  for (WriteMode m : modes()) {
    SCOPED_TRACE(mode_name(m));
    const auto sd = round_trip<double>(dir, b, m);
    EXPECT_EQ(sd, golden_2d_double);
  }
}

// Slabs along z with fewer planes than ranks: some ranks hold nothing and still take part.
TEST(Hdf5Mpi, EmptyRanksTakePart) {
  SharedDir dir;
  const Comm c = world();
  const Block b = box_of(3, {11, 7, 2}, {1, 1, c.size()}, c.rank());
  for (WriteMode m : modes()) {
    SCOPED_TRACE(mode_name(m));
    round_trip<double>(dir, b, m);
  }
  // Slabs along x (uneven: 11 over 2 or 4 ranks), the fastest axis.
  const Block bx = box_of(3, {11, 7, 5}, {c.size(), 1, 1}, c.rank());
  for (WriteMode m : modes()) {
    SCOPED_TRACE(mode_name(m));
    EXPECT_EQ(round_trip<double>(dir, bx, m), golden_3d_double);
  }
}

TEST(Hdf5Mpi, EveryRankSeesAFailure) {
  SharedDir dir;
  const Comm c = world();
  const Block b = box_of(3, {6, 5, 4}, process_grid(3, c.size()), c.rank());
  for (WriteMode m : modes()) {
    SCOPED_TRACE(mode_name(m));
    const std::string missing = dir / "missing/f.h5";
    try {
      FieldFile::create(missing, b, c, m);
      ADD_FAILURE() << "no exception";
    } catch (const eddy::Error& e) {
      EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    }
    // A bad box on the last rank only: every rank throws, naming that rank.
    Block bad = b;
    if (c.rank() == c.size() - 1) bad.extent[0] = b.global[0] + 1;
    try {
      FieldFile::create(dir / "bad.h5", bad, c, m);
      ADD_FAILURE() << "no exception";
    } catch (const eddy::Error& e) {
      if (c.size() > 1) {
        EXPECT_NE(std::string(e.what()).find("(rank " + std::to_string(c.size() - 1) + ")"),
                  std::string::npos)
            << e.what();
      }
    }
    // Boxes that do not tile the grid.
    Block overlap = Block::whole(3, b.global);
    if (c.size() > 1) {
      EXPECT_THROW(FieldFile::create(dir / "overlap.h5", overlap, c, m), eddy::Error);
    }
    // A failed write leaves the file usable, uncommitted files vanish on every path.
    {
      FieldFile f = FieldFile::create(dir / "partial.h5", b, c, m);
      const auto s = make_field<double>(b, 0);
      f.write_scalar("s", s.data());
      EXPECT_THROW(f.write_scalar("s", s.data()), eddy::Error);  // exists
      EXPECT_THROW(f.write_vector("v", s.data(), 0), eddy::Error);
    }
    c.barrier();
    EXPECT_FALSE(fs::exists(dir / "partial.h5"));
    EXPECT_FALSE(fs::exists(dir / "partial.h5.tmp"));
    EXPECT_FALSE(fs::exists(dir / "bad.h5.tmp"));
    EXPECT_FALSE(fs::exists(dir / "partial.ranks"));
    EXPECT_FALSE(fs::exists(dir / "partial.ranks.tmp"));
    EXPECT_FALSE(fs::exists(dir / "bad.ranks.tmp"));
  }
}

namespace {

/// Every dataset of `path` (values and their bytes) and its checksum attribute, read on this rank.
template <class T>
std::vector<T> all_values(const std::string& path, const std::string& name) {
  return FieldReader(path).read<T>(name).data;
}

}  // namespace

// The per_rank writer: datasets bitwise identical to the other writers' (FieldReader and h5diff),
// the same checksums, and read back on other rank counts (1 and 3 ranks of this job) from their own
// boxes, checksums verified collectively there.
TEST(Hdf5Mpi, PerRankEqualsTheOtherWritersOnAnyRankCount) {
  SharedDir dir;
  const Comm c = world();
  const Int3 global{11, 7, 5};
  const Block b = box_of(3, global, process_grid(3, c.size()), c.rank());
  const auto s = make_field<double>(b, 0);
  const auto v = make_field<float>(b, 3);
  const auto q = make_field<double>(b, 5);
  for (WriteMode m : modes()) {
    FieldFile f = FieldFile::create(dir / (std::string(mode_name(m)) + ".h5"), b, c, m);
    EXPECT_EQ(f.mode(), m);
    f.write_scalar("density", s.data(), Checksum::on);
    f.write_vector("velocity", v.data(), 3, Checksum::on);
    f.write_array("populations/f", q.data(), b, 5, Checksum::on);
    f.write_global("spectrum", std::vector<double>{0.5, 0.25});
    f.set_dataset_attribute("velocity", "units", "m/s");
    f.set_attribute("ranks", c.size());
    f.commit();
    // The datasets' bytes summed over the ranks' boxes, the same on every rank and for every writer.
    const auto cells = static_cast<std::uint64_t>(b.global_cells());
    EXPECT_EQ(f.stats().bytes, cells * (8 + 3 * 4 + 5 * 8) + 2 * 8);
  }
  c.barrier();
  const std::string pr = dir / "per_rank.h5";
  if (c.root()) {
    EXPECT_TRUE(
        fs::exists(dir / ("per_rank.ranks/" + std::string(c.size() > 1 ? "000001.h5" : "000000.h5"))));
    for (WriteMode m : modes()) {
      if (m == WriteMode::per_rank) continue;
      const std::string other = dir / (std::string(mode_name(m)) + ".h5");
      SCOPED_TRACE(other);
      const FieldReader a(pr), o(other);
      EXPECT_EQ(a.datasets(), o.datasets());
      const auto da = all_values<double>(pr, "density"), dof = all_values<double>(other, "density");
      ASSERT_EQ(da.size(), dof.size());
      EXPECT_EQ(std::memcmp(da.data(), dof.data(), da.size() * sizeof(double)), 0);
      EXPECT_EQ(all_values<float>(pr, "velocity"), all_values<float>(other, "velocity"));
      EXPECT_EQ(all_values<double>(pr, "populations/f"), all_values<double>(other, "populations/f"));
      EXPECT_EQ(all_values<double>(pr, "spectrum"), all_values<double>(other, "spectrum"));
      EXPECT_EQ(a.value_bytes("velocity"), 4);
      EXPECT_EQ(a.shape("populations/f"), o.shape("populations/f"));
      for (const char* name : {"density", "velocity", "populations/f"}) {
        EXPECT_EQ(a.attribute_u64("checksum", name), o.attribute_u64("checksum", name)) << name;
        EXPECT_TRUE(a.verify_checksum(name)) << name;
      }
      EXPECT_EQ(a.attribute_string("units", "velocity"), "m/s");
      EXPECT_EQ(a.attribute_long("ranks"), c.size());
      // h5diff sees the same datasets (exit status 0: no differences), where the tool is installed.
      if (std::system("command -v h5diff >/dev/null 2>&1") == 0) {
        const std::string cmd = "h5diff '" + pr + "' '" + other + "' >/dev/null 2>&1";
        EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
      }
    }
  }
  // Read back on 1 rank and on 3 ranks (as many as this job has), each with its own decomposition.
  for (int n : {1, 3}) {
    const int ranks = std::min(n, c.size());
    eddy::parallel::SplitComm split(c, c.rank() < ranks ? 0 : 1, c.rank());
    if (c.rank() >= ranks) continue;
    const Comm sub = split.comm();
    const Block mine = box_of(3, global, process_grid(3, ranks), sub.rank());
    FieldReader r(pr);
    EXPECT_EQ(r.read_block<double>("density", mine, 0), make_field<double>(mine, 0));
    EXPECT_EQ(r.read_block<float>("velocity", mine, 3), make_field<float>(mine, 3));
    EXPECT_EQ(r.read_block<double>("populations/f", mine, 5), make_field<double>(mine, 5));
    EXPECT_TRUE(r.verify_checksum("density", mine, 0, sub));
    EXPECT_TRUE(r.verify_checksum("populations/f", mine, 5, sub));
  }
  c.barrier();
}

// Checkpoints of the per_rank writer: rotation removes a checkpoint's rank files with it, `latest`
// and --restart auto find the newest, and its state reads back on this rank's box.
TEST(Hdf5Mpi, PerRankCheckpointsRotateWithTheirRankFiles) {
  SharedDir dir;
  const Comm c = world();
  const Block b = box_of(3, {6, 5, 4}, process_grid(3, c.size()), c.rank());
  const auto state = make_field<double>(b, 2);
  eddy::io::CheckpointMeta meta{"lbm", "D3Q19", "fp64", {6, 5, 4}, 0, 0.0, "solver: lbm\n", 0.5, "run-a"};
  const fs::path out = dir / "run";
  for (long step : {10L, 20L, 30L}) {
    meta.step = step, meta.time = 0.5 * static_cast<double>(step);
    eddy::io::WriteStats stats;
    eddy::io::write_checkpoint(out, meta, {&b, 2, 8, state.data()}, 2, c, WriteMode::per_rank, &stats);
    EXPECT_EQ(stats.mode, WriteMode::per_rank);
    EXPECT_EQ(stats.bytes, static_cast<std::uint64_t>(b.global_cells()) * 2 * 8);
  }
  c.barrier();
  const fs::path ck = out / "checkpoints";
  EXPECT_FALSE(fs::exists(ck / "ckpt_00000010.h5"));
  EXPECT_FALSE(fs::exists(ck / "ckpt_00000010.ranks"));
  EXPECT_TRUE(fs::exists(ck / "ckpt_00000020.ranks"));
  EXPECT_TRUE(fs::exists(ck / "ckpt_00000030.ranks/000000.h5"));
  const std::string found = eddy::io::find_checkpoint(out, "auto", {b, 2, 8}, c);
  EXPECT_EQ(fs::path(found).filename(), "ckpt_00000030.h5");
  const auto back = eddy::io::read_checkpoint_state(found, b, 2, 8);
  ASSERT_EQ(back.size(), state.size() * 8);
  EXPECT_EQ(std::memcmp(back.data(), state.data(), back.size()), 0);
  if (c.root()) {
    std::ifstream latest(ck / "latest");
    std::string name;
    latest >> name;
    EXPECT_EQ(name, "ckpt_00000030.h5");
  }
  c.barrier();
}

TEST(Hdf5Mpi, TextOutputsComeFromRankZeroOnce) {
  SharedDir dir;
  const Comm c = world();
  {
    eddy::io::DiagnosticsCsv csv(dir / "diagnostics.csv", {"kinetic_energy"}, c);
    for (long s = 0; s < 3; ++s) csv.row(s, 0.5 * static_cast<double>(s), {1.0 / static_cast<double>(s + 1)});
  }
  {
    auto csv = eddy::io::DiagnosticsCsv::open_append(dir / "diagnostics.csv", {"kinetic_energy"}, c, 1);
    csv.row(2, 1.0, {0.25});
  }
  eddy::io::XdmfSeries series(dir / "fields.xmf", c);
  for (long s = 0; s < 3; ++s) {
    eddy::io::XdmfGrid g;
    g.h5_file = eddy::io::step_file_name("run", s, ".h5");
    g.step = s;
    g.dims = 2;
    g.cells = {4, 4, 1};
    g.fields = {{"velocity", 2, 8}};
    series.add(g);
  }
  c.barrier();
  if (c.root()) {
    std::ifstream in(dir / "diagnostics.csv");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "step,time,kinetic_energy\n0,0,1\n1,0.5,0.5\n2,1,0.25\n");
    std::ifstream x(dir / "fields.xmf");
    std::stringstream xt;
    xt << x.rdbuf();
    size_t grids = 0;
    for (size_t p = xt.str().find("GridType=\"Uniform\""); p != std::string::npos;
         p = xt.str().find("GridType=\"Uniform\"", p + 1))
      ++grids;
    EXPECT_EQ(grids, 3u);
  }
}

namespace {

/// Non-root ranks print only failures, prefixed with their rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  eddy::parallel::MpiSession mpi(&argc, &argv);
  eddy::backend::initialize(world().node_local_rank());  // one GPU per rank, as eddy picks it
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = world().rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  const int rc = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}
