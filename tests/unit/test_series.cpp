// Time series in HDF5 (io/hdf5/series_file.hpp) on one rank: create, append, reopen, truncate to a
// restart step, refusal of a file of another layout, temporaries. tests/cli/test_probes.sh runs the
// files eddy writes with it (probes.h5, spectra.h5) through restarts and kills.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/hdf5/field_reader.hpp"
#include "io/hdf5/series_file.hpp"
#include "parallel/comm.hpp"
#include "tests/support/temp_dir.hpp"

using eddy::index_t;
using eddy::io::FieldReader;
using eddy::io::SeriesFile;
using eddy::io::SeriesLayout;

namespace {

eddy::parallel::Comm self() { return eddy::parallel::Comm(MPI_COMM_SELF); }

struct TempDir : eddy::test::TempDir {
  TempDir() : eddy::test::TempDir("eddy_series_") {}
};

/// Two points in 2D, a vector column of 3 components per point, a scalar column, wave numbers.
SeriesLayout layout() {
  SeriesLayout l;
  l.key = "output.test";
  l.columns = {{"velocity", {2, 3}, {}, "m/s"}, {"energy", {}, {}, "J"}};
  l.datasets = {{"k", {4}, {0.0, 1.0, 2.0, 3.0}, "1/m"}};
  l.attributes = {{"points", {2, 2}, {0.25, 0.5, 0.75, 0.125}, ""}};
  l.text = {{"solver", "test"}};
  return l;
}

/// Exactly representable values that encode the row and the position in it.
std::vector<std::vector<double>> row(long step) {
  std::vector<double> v(6);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = double(step) + 0.125 * double(i);
  return {v, {-double(step)}};
}

void append_rows(SeriesFile& f, const std::vector<long>& steps) {
  for (long s : steps) f.append(s, 0.5 * double(s), row(s));
}

/// The steps in the file, and a check of every row's values against row(step).
std::vector<std::int64_t> read_back(const std::string& path) {
  FieldReader r(path);
  const auto steps = r.read<std::int64_t>("step");
  const auto time = r.read<double>("time");
  const auto vel = r.read<double>("velocity");
  const auto energy = r.read<double>("energy");
  const std::size_t n = steps.data.size();
  EXPECT_EQ(vel.shape, (std::vector<index_t>{index_t(n), 2, 3}));
  EXPECT_EQ(energy.shape, (std::vector<index_t>{index_t(n)}));
  EXPECT_EQ(time.data.size(), n);
  for (std::size_t k = 0; k < n; ++k) {
    const long s = static_cast<long>(steps.data[k]);
    EXPECT_EQ(time.data[k], 0.5 * double(s));
    const auto want = row(s);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(vel.data[k * 6 + i], want[0][i]) << "row " << k;
    EXPECT_EQ(energy.data[k], want[1][0]);
  }
  return steps.data;
}

}  // namespace

TEST(SeriesFile, CreateAppendAndReadBack) {
  TempDir dir;
  const std::string path = dir / "s.h5";
  {
    SeriesFile f = SeriesFile::create(path, layout(), self());
    EXPECT_EQ(f.rows(), 0);
    append_rows(f, {0, 10, 20});
    EXPECT_EQ(f.rows(), 3);
  }
  EXPECT_EQ(read_back(path), (std::vector<std::int64_t>{0, 10, 20}));
  FieldReader r(path);
  EXPECT_EQ(r.attribute_doubles("points"), (std::vector<double>{0.25, 0.5, 0.75, 0.125}));
  EXPECT_EQ(r.read<double>("k").data, (std::vector<double>{0.0, 1.0, 2.0, 3.0}));
  EXPECT_EQ(r.attribute_string("units", "velocity"), "m/s");
  EXPECT_EQ(r.attribute_string("units", "time"), "s");
  EXPECT_EQ(r.attribute_string("solver"), "test");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(SeriesFile, ReopenTruncatesToTheRestartStepAndContinues) {
  TempDir dir;
  const std::string path = dir / "s.h5";
  {
    SeriesFile f = SeriesFile::create(path, layout(), self());
    append_rows(f, {0, 10, 20, 30, 40});
  }
  {
    // A restart from step 25: the rows of 30 and 40 came after that checkpoint.
    SeriesFile f = SeriesFile::open_append(path, layout(), self(), 25);
    EXPECT_EQ(f.rows(), 3);
    append_rows(f, {30, 35});
  }
  EXPECT_EQ(read_back(path), (std::vector<std::int64_t>{0, 10, 20, 30, 35}));
  {
    // A restart at a row's step keeps that row; one past the end keeps everything.
    SeriesFile f = SeriesFile::open_append(path, layout(), self(), 30);
    EXPECT_EQ(f.rows(), 4);
  }
  EXPECT_EQ(SeriesFile::open_append(path, layout(), self(), 1000).rows(), 4);
  EXPECT_EQ(read_back(path), (std::vector<std::int64_t>{0, 10, 20, 30}));
  // Before the first row: none kept, the layout stays.
  EXPECT_EQ(SeriesFile::open_append(path, layout(), self(), -1).rows(), 0);
  EXPECT_TRUE(read_back(path).empty());
  EXPECT_EQ(FieldReader(path).attribute_doubles("points"), layout().attributes[0].values);
}

TEST(SeriesFile, RestartWithoutAFileCreatesIt) {
  TempDir dir;
  const std::string path = dir / "s.h5";
  SeriesFile::check_append(path, layout(), self());  // nothing to continue: fine
  {
    SeriesFile f = SeriesFile::open_append(path, layout(), self(), 100);
    EXPECT_EQ(f.rows(), 0);
    append_rows(f, {110});
  }
  EXPECT_EQ(read_back(path), (std::vector<std::int64_t>{110}));
}

TEST(SeriesFile, RefusesToContinueAnotherLayout) {
  TempDir dir;
  const std::string path = dir / "s.h5";
  SeriesFile::create(path, layout(), self());
  SeriesLayout other = layout();
  other.columns[0].shape = {3, 3};  // another point count
  EXPECT_THROW(SeriesFile::check_append(path, other, self()), eddy::InputError);
  other = layout();
  other.attributes[0].values[3] = 0.5;  // a point moved
  EXPECT_THROW(SeriesFile::check_append(path, other, self()), eddy::InputError);
  other = layout();
  other.columns.push_back({"pressure", {2, 1}, {}, "Pa"});  // a field more
  EXPECT_THROW(SeriesFile::open_append(path, other, self(), 0), eddy::InputError);
  other = layout();
  other.datasets[0].values[1] = 1.5;
  try {
    SeriesFile::check_append(path, other, self());
    ADD_FAILURE() << "another k was accepted";
  } catch (const eddy::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("output.test"), std::string::npos) << what;
    EXPECT_NE(what.find("'k'"), std::string::npos) << what;
  }
  std::ofstream(dir / "text.h5") << "not an HDF5 file\n";
  EXPECT_THROW(SeriesFile::check_append(dir / "text.h5", layout(), self()), eddy::InputError);
  // The refused file is as it was.
  SeriesFile::check_append(path, layout(), self());
}

TEST(SeriesFile, RowsOfTheWrongSizeAreRefused) {
  TempDir dir;
  SeriesFile f = SeriesFile::create(dir / "s.h5", layout(), self());
  EXPECT_THROW(f.append(0, 0.0, {{1.0, 2.0}, {0.0}}), eddy::Error);
  EXPECT_THROW(f.append(0, 0.0, {row(0)[0]}), eddy::Error);
  EXPECT_EQ(f.rows(), 0);
}

TEST(SeriesFile, TemporaryIsNeverFollowed) {
  TempDir dir;
  const std::string path = dir / "s.h5", outside = dir / "outside";
  std::ofstream(outside) << "keep";
  std::filesystem::create_symlink(outside, path + ".tmp");
  SeriesFile::create(path, layout(), self());
  std::ifstream in(outside);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "keep");
  EXPECT_TRUE(read_back(path).empty());
}
