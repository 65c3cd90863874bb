// io/hdf5: field files, readers, checksums, XDMF and diagnostics.csv on one rank (MPI_COMM_SELF),
// through every write path this build has (gather always; collective with parallel HDF5).
// The multi-rank cases are in tests/mpi/test_hdf5_mpi.cpp.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/field_reader.hpp"
#include "io/hdf5/text_file.hpp"
#include "io/hdf5/xdmf.hpp"
#include "parallel/comm.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using eddy::index_t;
using eddy::Int3;
using eddy::io::Block;
using eddy::io::Checksum;
using eddy::io::DiagnosticsCsv;
using eddy::io::FieldFile;
using eddy::io::FieldReader;
using eddy::io::WriteMode;

namespace {

// MPI must be up: tests/support/mpi_main.cpp starts it for eddy_unit_tests; this environment does it
// when the file is linked with plain gtest_main instead. Whoever initialises MPI first owns it.
class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      owns_ = true;
    }
  }
  void TearDown() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owns_ && !finalised) MPI_Finalize();
  }

 private:
  bool owns_ = false;
};
[[maybe_unused]] ::testing::Environment* const mpi_env =
    ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

eddy::parallel::Comm self() { return eddy::parallel::Comm(MPI_COMM_SELF); }

/// A fresh directory per test, removed afterwards.
struct TempDir : eddy::test::TempDir {
  TempDir() : eddy::test::TempDir("eddy_h5_") {}
};

/// Distinct, exactly representable values that encode the global position (x, y, z, component).
double code(index_t i, index_t j, index_t k, int c = 0) {
  return static_cast<double>(i) + 100.0 * j + 10000.0 * k + 0.25 * c + 0.125;
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
  std::vector<WriteMode> m{WriteMode::automatic, WriteMode::gather, WriteMode::per_rank};
  if (eddy::io::hdf5_is_parallel()) m.push_back(WriteMode::collective);
  return m;
}

std::string mode_name(const ::testing::TestParamInfo<WriteMode>& p) {
  switch (p.param) {
    case WriteMode::automatic:
      return "automatic";
    case WriteMode::collective:
      return "collective";
    case WriteMode::per_rank:
      return "per_rank";
    default:
      return "gather";
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Minimal XML well-formedness check: balanced, properly nested tags, quoted attributes, one root.
/// Returns "" when well formed, else what is wrong.
std::string xml_problem(const std::string& x) {
  std::vector<std::string> stack;
  int roots = 0;
  size_t i = 0;
  while ((i = x.find('<', i)) != std::string::npos) {
    if (x.compare(i, 4, "<!--") == 0) {
      const size_t e = x.find("-->", i);
      if (e == std::string::npos) return "unterminated comment";
      i = e + 3;
      continue;
    }
    const size_t e = x.find('>', i);
    if (e == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = x.substr(i + 1, e - i - 1);
    i = e + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;  // declaration, DOCTYPE
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return "unbalanced </" + name + ">";
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find_first_of(" \t\n"));
    // attributes: name="value" pairs, values without '<' and with balanced quotes
    size_t quotes = 0;
    for (char c : tag) quotes += c == '"';
    if (quotes % 2) return "unbalanced quotes in <" + name + ">";
    if (stack.empty()) ++roots;
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return {};
}

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

// ------------------------------------------------------------------------------------ round trips

class Hdf5Modes : public ::testing::TestWithParam<WriteMode> {};
INSTANTIATE_TEST_SUITE_P(Hdf5, Hdf5Modes, ::testing::ValuesIn(modes()), mode_name);

TEST_P(Hdf5Modes, RoundTrip3D) {
  TempDir dir;
  const Block b = Block::whole(3, {5, 4, 3});
  const auto rho = make_field<double>(b, 0);
  const auto p32 = make_field<float>(b, 0);
  const auto u = make_field<double>(b, 3);
  const auto u32 = make_field<float>(b, 3);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.write_scalar("density", rho.data());
    f.write_scalar("pressure", p32.data());
    f.write_vector("velocity", u.data(), 3);
    f.write_vector("velocity32", u32.data(), 3);
    EXPECT_EQ(f.fields().size(), 4u);
    f.commit();
  }
  FieldReader r(dir / "f.h5");
  EXPECT_EQ(r.shape("density"), (std::vector<index_t>{3, 4, 5}));
  EXPECT_EQ(r.shape("velocity"), (std::vector<index_t>{3, 4, 5, 3}));
  EXPECT_EQ(r.value_bytes("density"), 8);
  EXPECT_EQ(r.value_bytes("pressure"), 4);
  EXPECT_EQ(r.value_bytes("velocity32"), 4);
  EXPECT_EQ(r.read<double>("density").data, rho);
  EXPECT_EQ(r.read<float>("pressure").data, p32);
  EXPECT_EQ(r.read<double>("velocity").data, u);
  EXPECT_EQ(r.read<float>("velocity32").data, u32);
  // float read as double converts exactly
  const auto p64 = r.read<double>("pressure").data;
  for (size_t n = 0; n < p64.size(); ++n) EXPECT_EQ(p64[n], static_cast<double>(p32[n]));
  EXPECT_EQ(r.datasets(), (std::vector<std::string>{"density", "pressure", "velocity", "velocity32"}));
}

TEST_P(Hdf5Modes, RoundTrip2D) {
  TempDir dir;
  const Block b = Block::whole(2, {7, 6, 1});
  const auto w = make_field<double>(b, 0);
  const auto u = make_field<double>(b, 2);
  const auto u32 = make_field<float>(b, 2);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.write_scalar("vorticity", w.data());
    f.write_vector("velocity", u.data(), 2);
    f.write_vector("velocity32", u32.data(), 2);
    f.commit();
  }
  FieldReader r(dir / "f.h5");
  EXPECT_EQ(r.shape("vorticity"), (std::vector<index_t>{6, 7}));
  EXPECT_EQ(r.shape("velocity"), (std::vector<index_t>{6, 7, 2}));
  EXPECT_EQ(r.read<double>("vorticity").data, w);
  EXPECT_EQ(r.read<double>("velocity").data, u);
  EXPECT_EQ(r.read<float>("velocity32").data, u32);
}

// The file is C order with z slowest: element [k][j][i][c] holds the value of cell (i, j, k).
TEST_P(Hdf5Modes, FileLayoutIsZYXC) {
  TempDir dir;
  const Block b = Block::whole(3, {4, 3, 2});
  const auto u = make_field<double>(b, 3);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.write_vector("u", u.data(), 3);
    f.commit();
  }
  const auto a = FieldReader(dir / "f.h5").read<double>("u");
  ASSERT_EQ(a.shape, (std::vector<index_t>{2, 3, 4, 3}));
  for (index_t k = 0; k < 2; ++k)
    for (index_t j = 0; j < 3; ++j)
      for (index_t i = 0; i < 4; ++i)
        for (int c = 0; c < 3; ++c)
          EXPECT_EQ(a.data[static_cast<size_t>(((k * 3 + j) * 4 + i) * 3 + c)], code(i, j, k, c));
}

TEST(Hdf5, ReadBlockReturnsTheBoxInLocalLayout) {
  TempDir dir;
  const Block whole = Block::whole(3, {6, 5, 4});
  const auto u = make_field<double>(whole, 2);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", whole, self());
    f.write_vector("u", u.data(), 2);
    f.commit();
  }
  Block box = whole;
  box.offset = {1, 2, 1};
  box.extent = {4, 2, 3};
  FieldReader r(dir / "f.h5");
  EXPECT_EQ(r.read_block<double>("u", box, 2), make_field<double>(box, 2));
  Block empty = whole;
  empty.extent = {0, 0, 0};
  EXPECT_TRUE(r.read_block<double>("u", empty, 2).empty());
  EXPECT_THROW(r.read_block<double>("u", box, 3), eddy::InputError);  // wrong component count
  EXPECT_THROW(r.read_block<double>("nope", box, 2), eddy::InputError);
}

TEST(Hdf5, VectorFromComponentArraysEqualsInterleaved) {
  TempDir dir;
  const Block b = Block::whole(2, {5, 3, 1});
  std::vector<double> ux, uy;
  for (index_t n = 0; n < b.local_cells(); ++n) {
    ux.push_back(0.5 * n);
    uy.push_back(-1.0 * n);
  }
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self());
    f.write_vector<double>("velocity", {ux.data(), uy.data()});
    f.commit();
  }
  const auto a = FieldReader(dir / "f.h5").read<double>("velocity");
  ASSERT_EQ(a.data.size(), 2 * ux.size());
  for (size_t n = 0; n < ux.size(); ++n) {
    EXPECT_EQ(a.data[2 * n], ux[n]);
    EXPECT_EQ(a.data[2 * n + 1], uy[n]);
  }
}

TEST(Hdf5, ArraysGroupsGlobalsAndCoordinates) {
  TempDir dir;
  const Block b = Block::whole(3, {3, 2, 2});
  std::vector<std::int64_t> ids(static_cast<size_t>(b.local_cells() * 19));
  for (size_t n = 0; n < ids.size(); ++n) ids[n] = static_cast<std::int64_t>(n) - 7;
  const std::vector<std::uint64_t> rng{1, 2, std::numeric_limits<std::uint64_t>::max()};
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self());
    f.write_array("populations/f", ids.data(), b, 19);
    f.write_global("rng/state", rng);
    f.write_coordinates({0.5, 1.5, 2.5}, {0.25, 0.75}, {1, 2});
    EXPECT_THROW(f.write_coordinates({0.5}, {0.25, 0.75}, {1, 2}), eddy::Error);
    EXPECT_TRUE(f.fields().empty());  // integers are not fields
    f.commit();
  }
  FieldReader r(dir / "f.h5");
  EXPECT_EQ(r.shape("populations/f"), (std::vector<index_t>{2, 2, 3, 19}));
  EXPECT_EQ(r.read<std::int64_t>("populations/f").data, ids);
  EXPECT_EQ(r.read<std::uint64_t>("rng/state").data, rng);
  EXPECT_EQ(r.read<double>("x").data, (std::vector<double>{0.5, 1.5, 2.5}));
  EXPECT_EQ(r.read<double>("y").data, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(r.read<double>("z").data, (std::vector<double>{1, 2}));
  EXPECT_TRUE(r.has_dataset("populations/f"));
  EXPECT_FALSE(r.has_dataset("populations/g"));
  EXPECT_FALSE(r.has_dataset("nothing/here"));
}

// ------------------------------------------------------------------------------------- attributes

TEST(Hdf5, AttributesRoundTrip) {
  TempDir dir;
  const Block b = Block::whole(2, {4, 4, 1});
  const auto rho = make_field<double>(b, 0);
  const std::string yaml = "solver: lbm\ndomain:\n  cells: [4, 4]\n# \xc3\xa9\xe2\x82\xac\n";
  const std::string big(200000, 'y');  // beyond HDF5's 64 KiB compact attribute limit
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self());
    f.set_attribute("solver", "lbm");
    f.set_attribute("resolved_config", yaml);
    f.set_attribute("big", big);
    f.set_attribute("time", 0.1);
    f.set_attribute("step", 42);
    f.set_attribute("ranks", 7L);
    f.set_attribute("cells_total", std::uint64_t{1} << 40);
    f.set_attribute("domain_length", std::vector<double>{1.0, 2.5});
    f.set_attribute("cells", std::vector<long>{4, 4});
    f.set_attribute("nothing", std::vector<double>{});
    f.set_attribute("step", 43);  // replaces
    f.write_scalar("density", rho.data());
    f.set_dataset_attribute("density", "units", "kg/m^3");
    f.set_dataset_attribute("density", "scale", 2.0);
    EXPECT_THROW(f.set_dataset_attribute("missing", "units", "m"), eddy::Error);
    f.commit();
  }
  FieldReader r(dir / "f.h5");
  EXPECT_EQ(r.attribute_string("solver"), "lbm");
  EXPECT_EQ(r.attribute_string("resolved_config"), yaml);
  EXPECT_EQ(r.attribute_string("big"), big);
  EXPECT_EQ(r.attribute_double("time"), 0.1);
  EXPECT_EQ(r.attribute_long("step"), 43);
  EXPECT_EQ(r.attribute_long("ranks"), 7);
  EXPECT_EQ(r.attribute_u64("cells_total"), std::uint64_t{1} << 40);
  EXPECT_EQ(r.attribute_doubles("domain_length"), (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(r.attribute_longs("cells"), (std::vector<long>{4, 4}));
  EXPECT_TRUE(r.attribute_doubles("nothing").empty());
  EXPECT_EQ(r.attribute_double("step"), 43.0);  // numbers convert
  EXPECT_EQ(r.attribute_string("units", "density"), "kg/m^3");
  EXPECT_EQ(r.attribute_double("scale", "density"), 2.0);
  EXPECT_TRUE(r.has_attribute("solver"));
  EXPECT_FALSE(r.has_attribute("solverx"));
  EXPECT_FALSE(r.has_attribute("units", "nope"));
  EXPECT_THROW(r.attribute_string("missing"), eddy::InputError);
  EXPECT_THROW(r.attribute_double("solver"), eddy::InputError);         // a string is not a number
  EXPECT_THROW(r.attribute_string("time"), eddy::InputError);           // and vice versa
  EXPECT_THROW(r.attribute_double("domain_length"), eddy::InputError);  // two values, not one
  try {
    r.attribute_long("nope");
    FAIL() << "no exception";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(dir / "f.h5"), std::string::npos) << e.what();
  }
}

// -------------------------------------------------------------------------------------- checksums

TEST(Hdf5Checksum, SumOverBoxesEqualsWholeForAnyDecomposition) {
  const Block whole = Block::whole(3, {7, 5, 3});
  const auto u = make_field<double>(whole, 3);
  const std::uint64_t total = eddy::io::block_checksum(u.data(), whole, 3);
  EXPECT_EQ(total, eddy::io::range_checksum(u.data(), u.size(), 0));
  for (const Int3 cut : {Int3{3, 2, 1}, Int3{1, 4, 2}, Int3{6, 1, 0}}) {
    std::uint64_t sum = 0;
    for (int bx = 0; bx < 2; ++bx)
      for (int by = 0; by < 2; ++by)
        for (int bz = 0; bz < 2; ++bz) {
          Block box = whole;
          const int sel[3] = {bx, by, bz};
          for (size_t d = 0; d < 3; ++d) {
            box.offset[d] = sel[d] ? cut[d] : 0;
            box.extent[d] = sel[d] ? whole.global[d] - cut[d] : cut[d];
          }
          const auto part = make_field<double>(box, 3);
          sum += eddy::io::block_checksum(part.data(), box, 3);
        }
    EXPECT_EQ(sum, total);
  }
  // Any single-bit change, anywhere, changes it; so does swapping two values.
  auto v = u;
  for (size_t n : {size_t{0}, u.size() / 2, u.size() - 1}) {
    for (int bit : {0, 31, 63}) {
      v = u;
      std::uint64_t bits;
      std::memcpy(&bits, &v[n], 8);
      bits ^= std::uint64_t{1} << bit;
      std::memcpy(&v[n], &bits, 8);
      EXPECT_NE(eddy::io::block_checksum(v.data(), whole, 3), total);
    }
  }
  v = u;
  std::swap(v[1], v[2]);
  EXPECT_NE(eddy::io::block_checksum(v.data(), whole, 3), total);
}

TEST_P(Hdf5Modes, ChecksumVerifiesAndAFlippedByteFails) {
  TempDir dir;
  const Block b = Block::whole(3, {6, 5, 4});
  auto rho = make_field<double>(b, 0);
  const double marker = 987654.3212345;  // a byte pattern to find in the file
  rho[37] = marker;
  const auto u32 = make_field<float>(b, 3);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.write_scalar("density", rho.data(), Checksum::on);
    f.write_vector("velocity", u32.data(), 3, Checksum::on);
    f.write_global("rng", std::vector<std::uint64_t>{5, 6, 7}, Checksum::on);
    f.write_scalar("plain", rho.data());
    f.commit();
  }
  {
    FieldReader r(dir / "f.h5");
    EXPECT_EQ(r.attribute_u64("checksum", "density"), eddy::io::block_checksum(rho.data(), b, 0));
    EXPECT_EQ(r.attribute_string("checksum_scheme", "density"), eddy::io::checksum_scheme);
    EXPECT_TRUE(r.verify_checksum("density"));
    EXPECT_TRUE(r.verify_checksum("velocity"));
    EXPECT_TRUE(r.verify_checksum("rng"));
    EXPECT_TRUE(r.verify_checksum("density", b, 0, self()));
    EXPECT_TRUE(r.verify_checksum("velocity", b, 3, self()));
    EXPECT_THROW(r.verify_checksum("plain"), eddy::InputError);
  }
  // Flip one bit of the marker value inside the file (per_rank: the rank file holding the data).
  const std::string data_file = GetParam() == WriteMode::per_rank
                                    ? eddy::io::per_rank_dir(dir / "f.h5") + "/000000.h5"
                                    : std::string(dir / "f.h5");
  std::string bytes = slurp(data_file);
  char pattern[8];
  std::memcpy(pattern, &marker, 8);
  const size_t at = bytes.find(std::string(pattern, 8));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = static_cast<char>(bytes[at + 3] ^ 0x10);
  std::ofstream(data_file, std::ios::binary | std::ios::trunc) << bytes;
  FieldReader r(dir / "f.h5");
  EXPECT_FALSE(r.verify_checksum("density"));
  EXPECT_FALSE(r.verify_checksum("density", b, 0, self()));
  EXPECT_TRUE(r.verify_checksum("velocity"));
}

// ------------------------------------------------------------------------------ commit semantics

TEST_P(Hdf5Modes, OnlyTheTempNameExistsBeforeCommit) {
  TempDir dir;
  const Block b = Block::whole(2, {3, 3, 1});
  const auto w = make_field<double>(b, 0);
  FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
  f.write_scalar("vorticity", w.data());
  EXPECT_TRUE(fs::exists(dir / "f.h5.tmp"));
  EXPECT_FALSE(fs::exists(dir / "f.h5"));
  EXPECT_EQ(f.temp_path(), dir / "f.h5.tmp");
  f.commit();
  EXPECT_TRUE(f.committed());
  EXPECT_TRUE(fs::exists(dir / "f.h5"));
  EXPECT_FALSE(fs::exists(dir / "f.h5.tmp"));
  EXPECT_THROW(f.write_scalar("again", w.data()), eddy::Error);
  EXPECT_THROW(f.commit(), eddy::Error);
}

TEST_P(Hdf5Modes, UncommittedFileLeavesNothingAndKeepsAnOlderFile) {
  TempDir dir;
  const Block b = Block::whole(2, {3, 3, 1});
  const auto w = make_field<double>(b, 0);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.write_scalar("vorticity", w.data());
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.set_attribute("step", 1);
    f.commit();
  }
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.set_attribute("step", 2);
    FieldFile moved = std::move(f);  // ownership moves; still one file
    moved.write_scalar("vorticity", w.data());
  }
  EXPECT_FALSE(fs::exists(dir / "f.h5.tmp"));
  EXPECT_EQ(FieldReader(dir / "f.h5").attribute_long("step"), 1);
}

// ------------------------------------------------------------------------------------ per_rank

TEST(Hdf5PerRank, WriterNamesAndAutomaticChoice) {
  using eddy::io::parse_write_mode;
  using eddy::io::resolve_write_mode;
  for (WriteMode m : {WriteMode::automatic, WriteMode::collective, WriteMode::gather, WriteMode::per_rank})
    EXPECT_EQ(parse_write_mode(eddy::io::to_string(m)), m);
  EXPECT_THROW(parse_write_mode("mpiio"), eddy::InputError);
  const bool parallel = eddy::io::hdf5_is_parallel();
  EXPECT_EQ(resolve_write_mode(WriteMode::automatic, 1),
            parallel ? WriteMode::collective : WriteMode::gather);
  EXPECT_EQ(resolve_write_mode(WriteMode::automatic, 4),
            parallel ? WriteMode::collective : WriteMode::per_rank);
  EXPECT_EQ(resolve_write_mode(WriteMode::gather, 4), WriteMode::gather);
  EXPECT_EQ(eddy::io::per_rank_dir("out/fields/run_00000100.h5"), "out/fields/run_00000100.ranks");
  EXPECT_EQ(eddy::io::per_rank_dir("f.hdf"), "f.hdf.ranks");
}

// The layout on disk: <path> and <stem>.ranks/000000.h5, nothing under a temporary name; the reader
// refuses a file whose rank files are gone (HDF5 alone would read fill values); a file of another
// writer under the same name leaves no stale rank directory behind.
TEST(Hdf5PerRank, LayoutMissingRankFilesAndReplacement) {
  TempDir dir;
  const Block b = Block::whole(3, {5, 4, 3});
  const auto v = make_field<double>(b, 3);
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), WriteMode::per_rank);
    EXPECT_EQ(f.mode(), WriteMode::per_rank);
    EXPECT_FALSE(f.collective());
    EXPECT_TRUE(fs::is_directory(dir / "f.ranks.tmp"));
    f.write_vector("velocity", v.data(), 3, Checksum::on);
    f.write_global("spectrum", std::vector<double>{1, 2, 3});
    f.commit();
    EXPECT_EQ(f.stats().mode, WriteMode::per_rank);
    EXPECT_EQ(f.stats().bytes, (v.size() + 3) * sizeof(double));
    EXPECT_GT(f.stats().seconds, 0.0);
  }
  EXPECT_TRUE(fs::exists(dir / "f.h5"));
  EXPECT_TRUE(fs::exists(dir / "f.ranks/000000.h5"));
  EXPECT_FALSE(fs::exists(dir / "f.ranks.tmp"));
  EXPECT_FALSE(fs::exists(dir / "f.h5.tmp"));
  {
    FieldReader r(dir / "f.h5");
    EXPECT_EQ(r.read<double>("velocity").data, v);
    EXPECT_TRUE(r.verify_checksum("velocity"));
    EXPECT_EQ(r.read<double>("spectrum").data, (std::vector<double>{1, 2, 3}));
  }
  fs::rename(dir / "f.ranks", dir / "elsewhere");
  try {
    FieldReader(dir / "f.h5").read<double>("velocity");
    ADD_FAILURE() << "no exception";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rank files it maps are missing"), std::string::npos) << e.what();
  }
  EXPECT_EQ(FieldReader(dir / "f.h5").read<double>("spectrum").data, (std::vector<double>{1, 2, 3}));
  fs::rename(dir / "elsewhere", dir / "f.ranks");
  {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), WriteMode::gather);
    f.write_vector("velocity", v.data(), 3);
    f.commit();
  }
  EXPECT_FALSE(fs::exists(dir / "f.ranks"));
  EXPECT_EQ(FieldReader(dir / "f.h5").read<double>("velocity").data, v);
  eddy::io::remove_field_file(dir / "f.h5");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// ---------------------------------------------------------------------------------------- errors

TEST_P(Hdf5Modes, MissingDirectoryIsAnErrorNamingThePath) {
  TempDir dir;
  const std::string path = dir / "no/such/dir/f.h5";
  try {
    FieldFile::create(path, Block::whole(2, {3, 3, 1}), self(), GetParam());
    FAIL() << "no exception";
  } catch (const eddy::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.exit_code(), eddy::exit_failure);
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
  }
}

TEST_P(Hdf5Modes, DirectoryThatIsAFileIsAnError) {
  TempDir dir;
  std::ofstream(dir / "plain") << "x";
  const std::string path = dir / "plain/f.h5";
  try {
    FieldFile::create(path, Block::whole(2, {3, 3, 1}), self(), GetParam());
    FAIL() << "no exception";
  } catch (const eddy::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
  }
}

TEST_P(Hdf5Modes, UnwritableDirectoryIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  fs::create_directory(dir / "ro");
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(FieldFile::create(dir / "ro/f.h5", Block::whole(2, {3, 3, 1}), self(), GetParam()),
               eddy::Error);
  fs::permissions(dir / "ro", fs::perms::owner_all);
}

// Too little room for the data (here a file-size limit; a full disk is found the same way, from
// statvfs): the write fails with an Error naming the file before HDF5 runs out of space, and neither
// the final file nor the .tmp is left behind.
TEST_P(Hdf5Modes, NoRoomIsAnErrorAndLeavesNoFile) {
  TempDir dir;
  const Block b = Block::whole(3, {64, 64, 32});  // 1 MiB of doubles
  const auto rho = make_field<double>(b, 0);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of a signal
  rlimit small = old;
  small.rlim_cur = 256 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  std::string what;
  try {
    FieldFile f = FieldFile::create(dir / "f.h5", b, self(), GetParam());
    f.write_scalar("density", rho.data());
    f.commit();
  } catch (const eddy::Error& e) {
    threw = true;
    what = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_NE(what.find(dir / "f.h5"), std::string::npos) << what;
  EXPECT_NE(what.find("file-size limit"), std::string::npos) << what;
  EXPECT_FALSE(fs::exists(dir / "f.h5"));
  EXPECT_FALSE(fs::exists(dir / "f.h5.tmp"));
}

TEST(Hdf5, MisuseIsAnError) {
  TempDir dir;
  const Block b = Block::whole(2, {4, 3, 1});
  const auto w = make_field<double>(b, 0);
  Block bad = b;
  bad.offset = {2, 0, 0};  // runs past the grid
  EXPECT_THROW(FieldFile::create(dir / "a.h5", bad, self()), eddy::Error);
  Block part = b;
  part.extent = {2, 3, 1};  // one rank must cover the whole grid
  EXPECT_THROW(FieldFile::create(dir / "b.h5", part, self()), eddy::Error);
  if (!eddy::io::hdf5_is_parallel()) {
    EXPECT_THROW(FieldFile::create(dir / "c.h5", b, self(), WriteMode::collective), eddy::Error);
  }
  FieldFile f = FieldFile::create(dir / "d.h5", b, self());
  f.write_scalar("w", w.data());
  EXPECT_THROW(f.write_scalar("w", w.data()), eddy::Error);  // exists already
  EXPECT_THROW(f.write_scalar("v", static_cast<const double*>(nullptr)), eddy::Error);
  EXPECT_THROW(f.write_vector("u", w.data(), 0), eddy::Error);
  EXPECT_THROW(f.write_vector<double>("u", {w.data(), nullptr}), eddy::Error);
  f.write_scalar("w2", w.data());  // still usable after refused calls
  f.commit();
  EXPECT_EQ(FieldReader(dir / "d.h5").read<double>("w2").data, w);
}

TEST(Hdf5, ReaderErrorsAreInputErrors) {
  TempDir dir;
  EXPECT_THROW(FieldReader(dir / "missing.h5"), eddy::InputError);
  std::ofstream(dir / "text.h5") << "not hdf5 at all";
  try {
    FieldReader r(dir / "text.h5");
    FAIL() << "no exception";
  } catch (const eddy::InputError& e) {
    EXPECT_EQ(e.exit_code(), eddy::exit_bad_input);
    EXPECT_NE(std::string(e.what()).find(dir / "text.h5"), std::string::npos) << e.what();
  }
  {
    FieldFile f = FieldFile::create(dir / "f.h5", Block::whole(2, {2, 2, 1}), self());
    f.commit();
  }
  FieldReader r(dir / "f.h5");
  EXPECT_THROW(r.read<double>("density"), eddy::InputError);
  EXPECT_THROW(r.shape("density"), eddy::InputError);
}

// ------------------------------------------------------------------------------------------- XDMF

TEST(Xdmf, ThreeDimensionalFileIsWellFormedAndDescribesTheDatasets) {
  TempDir dir;
  eddy::io::XdmfGrid g;
  g.h5_file = "tgv_00000100.h5";
  g.step = 100;
  g.time = 0.25;
  g.dims = 3;
  g.cells = {8, 6, 4};
  g.spacing = {0.5, 0.25, 0.125};
  g.origin = {0.0, -1.0, 2.0};
  g.fields = {{"velocity", 3, 4}, {"density", 0, 8}, {"pressure", 0, 4}};
  const std::string path = dir / eddy::io::step_file_name("tgv", 100, ".xmf");
  EXPECT_EQ(fs::path(path).filename(), "tgv_00000100.xmf");
  eddy::io::write_xdmf(path, g, self());
  const std::string x = slurp(path);
  EXPECT_EQ(xml_problem(x), "") << x;
  EXPECT_NE(x.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"5 7 9\""), std::string::npos) << x;
  EXPECT_NE(x.find(">0.125 0.25 0.5<"), std::string::npos) << x;  // spacing z y x
  EXPECT_NE(x.find(">2 -1 0<"), std::string::npos) << x;          // origin z y x
  EXPECT_NE(x.find("<Time Value=\"0.25\"/>"), std::string::npos) << x;
  EXPECT_NE(x.find("AttributeType=\"Vector\""), std::string::npos) << x;
  EXPECT_NE(x.find("Dimensions=\"4 6 8 3\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">"
                   "tgv_00000100.h5:/velocity<"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("Precision=\"8\" Format=\"HDF\">tgv_00000100.h5:/density<"), std::string::npos) << x;
  EXPECT_EQ(count_of(x, "<Attribute "), 3u);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(Xdmf, TwoDimensionalVelocityBecomesScalarComponents) {
  TempDir dir;
  eddy::io::XdmfGrid g;
  g.h5_file = "cav & co_00000000.h5";  // escaped in the XML
  g.dims = 2;
  g.cells = {16, 8, 1};
  g.spacing = {1.0 / 16, 1.0 / 8, 1};
  g.fields = {{"velocity", 2, 8}, {"vorticity", 0, 8}};
  const std::string path = dir / "cav.xmf";
  eddy::io::write_xdmf(path, g, self());
  const std::string x = slurp(path);
  EXPECT_EQ(xml_problem(x), "") << x;
  // one layer of cells in the xy plane, 1/16 thick
  EXPECT_NE(x.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"2 9 17\""), std::string::npos) << x;
  EXPECT_NE(x.find(">0.0625 0.125 0.0625<"), std::string::npos) << x;
  EXPECT_NE(x.find("<DataItem Dimensions=\"1 8 16\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
                   "cav &amp; co_00000000.h5:/vorticity<"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("Name=\"velocity_x\""), std::string::npos) << x;
  EXPECT_NE(x.find("Name=\"velocity_y\""), std::string::npos) << x;
  EXPECT_NE(x.find("<DataItem Dimensions=\"3 3\" Format=\"XML\">0 0 1 1 1 1 8 16 1</DataItem>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("cav &amp; co_00000000.h5:/velocity"), std::string::npos) << x;
  EXPECT_EQ(x.find("Vector"), std::string::npos) << x;
}

TEST(Xdmf, SeriesGrowsAndRestartDropsLaterTimes) {
  TempDir dir;
  const std::string path = dir / "fields.xmf";
  auto grid = [](long step) {
    eddy::io::XdmfGrid g;
    g.h5_file = eddy::io::step_file_name("run", step, ".h5");
    g.step = step;
    g.time = 0.1 * static_cast<double>(step);
    g.dims = 3;
    g.cells = {4, 4, 4};
    g.fields = {{"velocity", 3, 8}};
    return g;
  };
  {
    eddy::io::XdmfSeries s(path, self());
    EXPECT_FALSE(fs::exists(path));
    for (long step : {0, 10, 20, 30}) s.add(grid(step));
    s.add(grid(20));  // same step again: replaced, not duplicated
    EXPECT_EQ(s.size(), 4u);
  }
  std::string x = slurp(path);
  EXPECT_EQ(xml_problem(x), "") << x;
  EXPECT_NE(x.find("CollectionType=\"Temporal\""), std::string::npos);
  EXPECT_EQ(count_of(x, "GridType=\"Uniform\""), 4u);
  EXPECT_LT(x.find("run_00000010.h5"), x.find("run_00000020.h5"));
  {
    auto s = eddy::io::XdmfSeries::open_append(path, self(), 15);  // restart from step 15
    EXPECT_EQ(s.size(), 2u);
    x = slurp(path);
    EXPECT_EQ(count_of(x, "GridType=\"Uniform\""), 2u);
    EXPECT_EQ(x.find("run_00000020.h5"), std::string::npos);
    s.add(grid(25));
  }
  x = slurp(path);
  EXPECT_EQ(xml_problem(x), "") << x;
  EXPECT_EQ(count_of(x, "GridType=\"Uniform\""), 3u);
  EXPECT_NE(x.find("<Time Value=\"2.5\"/>"), std::string::npos) << x;
  EXPECT_EQ(eddy::io::XdmfSeries::open_append(dir / "none.xmf", self(), 5).size(), 0u);
}

TEST(Xdmf, UnwritablePathIsAnError) {
  TempDir dir;
  eddy::io::XdmfGrid g;
  g.dims = 2;
  g.cells = {2, 2, 1};
  EXPECT_THROW(eddy::io::write_xdmf(dir / "missing/a.xmf", g, self()), eddy::Error);
  g.dims = 1;
  EXPECT_THROW(eddy::io::write_xdmf(dir / "a.xmf", g, self()), eddy::Error);
}

// ----------------------------------------------------------------------------------- diagnostics

TEST(DiagnosticsCsv, HeaderRowsAndExactNumbers) {
  TempDir dir;
  const std::string path = dir / "diagnostics.csv";
  {
    DiagnosticsCsv csv(path, {"kinetic_energy", "enstrophy"}, self());
    csv.row(0, 0.0, {0.125, 1.0 / 3.0});
    csv.row(10, 0.1, {1e-300, std::nan("")});
    EXPECT_EQ(slurp(path),
              "step,time,kinetic_energy,enstrophy\n0,0,0.125,0.3333333333333333\n"
              "10,0.1,1e-300,nan\n");  // flushed per row
    EXPECT_THROW(csv.row(20, 0.2, {1.0}), eddy::Error);
  }
  std::istringstream in(slurp(path));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  EXPECT_EQ(std::strtod(line.substr(line.rfind(',') + 1).c_str(), nullptr), 1.0 / 3.0);
  EXPECT_THROW(DiagnosticsCsv(dir / "x.csv", {"a", "a"}, self()), eddy::Error);
  EXPECT_THROW(DiagnosticsCsv(dir / "x.csv", {"time"}, self()), eddy::Error);
  EXPECT_THROW(DiagnosticsCsv(dir / "x.csv", {"a,b"}, self()), eddy::Error);
  EXPECT_THROW(DiagnosticsCsv(dir / "missing/x.csv", {"a"}, self()), eddy::Error);
}

TEST(DiagnosticsCsv, AppendKeepsRowsUpToTheRestartStep) {
  TempDir dir;
  const std::string path = dir / "diagnostics.csv";
  {
    DiagnosticsCsv csv(path, {"e"}, self());
    for (long s = 0; s <= 50; s += 10) csv.row(s, 0.01 * static_cast<double>(s), {static_cast<double>(s)});
  }
  std::ofstream(path, std::ios::app) << "60,0.6,6";  // torn last line of a killed run
  {
    auto csv = DiagnosticsCsv::open_append(path, {"e"}, self(), 30);
    EXPECT_EQ(slurp(path), "step,time,e\n0,0,0\n10,0.1,10\n20,0.2,20\n30,0.3,30\n");
    csv.row(40, 0.4, {40.5});
  }
  EXPECT_EQ(slurp(path), "step,time,e\n0,0,0\n10,0.1,10\n20,0.2,20\n30,0.3,30\n40,0.4,40.5\n");
  // A different set of columns is refused: the old file is input.
  EXPECT_THROW(DiagnosticsCsv::open_append(path, {"e", "z"}, self(), 30), eddy::InputError);
  EXPECT_EQ(slurp(path), "step,time,e\n0,0,0\n10,0.1,10\n20,0.2,20\n30,0.3,30\n40,0.4,40.5\n");
  // No earlier file: a fresh one.
  auto fresh = DiagnosticsCsv::open_append(dir / "new.csv", {"e"}, self(), 30);
  EXPECT_EQ(slurp(dir / "new.csv"), "step,time,e\n");
}

namespace {

/// One small checkpoint of `lineage` at `step` (dt 0.5) into `out`, keeping `keep`.
std::string checkpoint_at(const fs::path& out, long step, const std::string& lineage, long keep) {
  const Block whole = Block::whole(2, {4, 3, 1});
  const auto state = make_field<double>(whole, 2);
  eddy::io::CheckpointMeta meta{
      "lbm", "D2Q9", "fp64", {4, 3}, step, 0.5 * static_cast<double>(step), "solver: lbm\n", 0.5, lineage};
  return eddy::io::write_checkpoint(out, meta, {&whole, 2, 8, state.data()}, keep, self());
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> v;
  for (const fs::path& p : eddy::io::list_checkpoints(dir)) v.push_back(p.filename().string());
  return v;
}

}  // namespace

// Past step 99,999,999 the names grow a ninth digit: checkpoints are ordered by their step, never by
// name, so rotation keeps the newest and --restart auto takes it (with keep 1, each one written stays).
TEST(Hdf5Checkpoint, OrderedByStepPastEightDigits) {
  TempDir dir;
  for (long step : {99999998L, 99999999L, 100000000L, 100000001L}) {
    const std::string path = checkpoint_at(dir.path(), step, "run-a", 1);
    EXPECT_TRUE(fs::exists(path)) << step;
  }
  EXPECT_EQ(names_in(dir.path() / "checkpoints"), std::vector<std::string>{"ckpt_100000001.h5"});
  const Block whole = Block::whole(2, {4, 3, 1});
  const std::string found = eddy::io::find_checkpoint(dir.path(), "auto", {whole, 2, 8}, self());
  EXPECT_EQ(fs::path(found).filename(), "ckpt_100000001.h5");
  EXPECT_EQ(slurp(dir / "checkpoints/latest"), "ckpt_100000001.h5\n");
  EXPECT_EQ(eddy::io::checkpoint_step_of("ckpt_100000001.h5"), 100000001L);
  EXPECT_EQ(eddy::io::checkpoint_step_of("ckpt_1x.h5"), -1L);
}

// Rotation removes only checkpoints of the lineage written, older than the one just written: another
// run's (higher steps) stay, and so do this lineage's newer ones.
TEST(Hdf5Checkpoint, RotationRemovesOnlyOlderOnesOfItsLineage) {
  TempDir dir;
  for (long step : {10000L, 20000L, 30000L}) checkpoint_at(dir.path(), step, "old", 3);
  for (long step : {500L, 1000L}) checkpoint_at(dir.path(), step, "new", 3);
  const fs::path ck = dir.path() / "checkpoints";
  EXPECT_EQ(names_in(ck),
            (std::vector<std::string>{"ckpt_00030000.h5", "ckpt_00020000.h5", "ckpt_00010000.h5",
                                      "ckpt_00001000.h5", "ckpt_00000500.h5"}));
  for (long step : {1500L, 2000L}) checkpoint_at(dir.path(), step, "new", 3);
  EXPECT_EQ(names_in(ck),
            (std::vector<std::string>{"ckpt_00030000.h5", "ckpt_00020000.h5", "ckpt_00010000.h5",
                                      "ckpt_00002000.h5", "ckpt_00001500.h5", "ckpt_00001000.h5"}));
  checkpoint_at(dir.path(), 1200, "new", 2);  // a restart from 1000: 1500 and 2000 are newer, not removed
  EXPECT_TRUE(fs::exists(ck / "ckpt_00002000.h5"));
  EXPECT_TRUE(fs::exists(ck / "ckpt_00001500.h5"));
  EXPECT_TRUE(fs::exists(ck / "ckpt_00001200.h5"));
  EXPECT_TRUE(fs::exists(ck / "ckpt_00001000.h5"));
  EXPECT_TRUE(fs::exists(ck / "ckpt_00030000.h5"));
}

// A checkpoint whose state has another shape or type than the run's is refused before its checksum is
// computed, and --restart auto falls back past it.
TEST(Hdf5Checkpoint, StateOfAnotherShapeIsUnusable) {
  TempDir dir;
  checkpoint_at(dir.path(), 10, "a", 3);
  const Block other = Block::whole(2, {5, 3, 1});
  try {
    eddy::io::find_checkpoint(dir.path(), dir / "checkpoints/ckpt_00000010.h5", {other, 2, 8}, self());
    ADD_FAILURE() << "no error";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shape (3, 4, 2), the run's state is (3, 5, 2)"), std::string::npos)
        << e.what();
  }
  const Block whole = Block::whole(2, {4, 3, 1});
  EXPECT_THROW(eddy::io::find_checkpoint(dir.path(), "auto", {whole, 2, 4}, self()), eddy::InputError);
  checkpoint_at(dir.path(), 20, "a", 3);
  {
    std::ofstream junk(dir / "checkpoints/ckpt_00000030.h5");
    junk << "not HDF5";
  }
  const std::string found = eddy::io::find_checkpoint(dir.path(), "auto", {whole, 2, 8}, self());
  EXPECT_EQ(fs::path(found).filename(), "ckpt_00000020.h5");
}

// Temporaries never follow a symbolic link planted under their name: the target outside is untouched.
TEST(Hdf5, TemporariesDoNotFollowSymlinks) {
  TempDir dir;
  const std::string victim = dir / "victim.txt";
  {
    std::ofstream v(victim);
    v << "precious\n";
  }
  fs::create_directories(dir.path() / "out");
  fs::create_symlink(victim, dir.path() / "out/f.h5.tmp");
  fs::create_symlink(victim, dir.path() / "out/t.txt.tmp");
  {
    const Block whole = Block::whole(2, {4, 3, 1});
    const auto u = make_field<double>(whole, 2);
    FieldFile f = FieldFile::create(dir / "out/f.h5", whole, self());
    f.write_vector("u", u.data(), 2);
    f.commit();
  }
  EXPECT_EQ(eddy::io::write_text_atomically(dir / "out/t.txt", "new\n"), "");
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(slurp(dir / "out/t.txt"), "new\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir.path() / "out/f.h5")));
}
