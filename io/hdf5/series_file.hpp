#pragma once
/// A time series in one HDF5 file (src/README.md, Output files: probes.h5, spectra.h5): extendable
/// datasets `step` (n, int64) and `time` (n) [s], and for each column a dataset (n, row shape...) that
/// gains one row per append, beside arrays written once when the file is made (root attributes, and
/// datasets such as the wave numbers of a spectrum).
///
/// Rank 0 owns the file (serial HDF5, whatever the build's HDF5); every member function is collective
/// (call it on every rank with the same arguments, which the series' values are after their
/// reductions) so that a failure on rank 0 (disk full) becomes the same eddy::Error on every rank. The
/// file is made as `<path>.tmp` (created exclusively, never through a link) and renamed, so a file under
/// its final name always holds the layout; then every append extends each dataset by its row and flushes
/// the file, so a run that is killed loses at most the row being written. The file is opened without an
/// HDF5 file lock, so another process can read the rows up to the last flush while the run writes (no
/// SWMR: a read that races an append may fail and is read again).
///
/// A restart (open_append) keeps the rows with step <= the checkpoint's step and drops the later ones
/// (written after the checkpoint it restarts from) by shrinking the datasets, then appends: the series
/// continues with no gap and no duplicate.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "parallel/comm.hpp"

namespace eddy::io {

/// One array of a series file: a column (`shape` is one row's; `values` unused) or an array written once
/// (`shape` is the whole array's, `values` its values in C order). Empty shape: a scalar.
struct SeriesArray {
  std::string name;
  std::vector<index_t> shape;
  std::vector<double> values;
  std::string units;  ///< the dataset's `units` attribute ("" = none; attributes have none)
};

/// What a series file holds besides `step` and `time`.
struct SeriesLayout {
  std::string key;                      ///< the config key that asks for the file, named in errors
  std::vector<SeriesArray> columns;     ///< one row per append, in this order
  std::vector<SeriesArray> datasets;    ///< written once (e.g. the wave numbers `k`)
  std::vector<SeriesArray> attributes;  ///< root attributes of doubles, written once (e.g. `points`)
  std::vector<std::pair<std::string, std::string>> text;  ///< root text attributes, written once
};

class SeriesFile {
 public:
  /// Make `path` anew with `layout` and no rows (a file of that name is replaced).
  static SeriesFile create(const std::string& path, const SeriesLayout& layout, const parallel::Comm& comm);
  /// Restart: continue `path` after its rows with step <= keep_up_to_step (later rows are dropped). A
  /// missing file is made anew. eddy::InputError when the file's layout is not this one (check_append).
  static SeriesFile open_append(const std::string& path, const SeriesLayout& layout,
                                const parallel::Comm& comm, long keep_up_to_step);
  /// Whether open_append would continue `path` (it holds step, time and the layout's columns with their
  /// row shapes, and the written-once arrays with the same values; or it does not exist), reading only;
  /// eddy::InputError otherwise. A restart asks before it writes anything.
  static void check_append(const std::string& path, const SeriesLayout& layout, const parallel::Comm& comm);

  SeriesFile(SeriesFile&&) noexcept;
  SeriesFile& operator=(SeriesFile&&) noexcept;
  SeriesFile(const SeriesFile&) = delete;
  SeriesFile& operator=(const SeriesFile&) = delete;
  ~SeriesFile();

  /// Append one row: `values[c]` for column c of the layout, as many values as its row shape holds (C
  /// order). Flushes the file.
  void append(long step, double time, const std::vector<std::vector<double>>& values);

  /// Rows in the file (the same on every rank).
  long rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  struct File;
  SeriesFile(std::string path, SeriesLayout layout, const parallel::Comm& comm);
  void open_existing(long keep_up_to_step);

  std::string path_;
  SeriesLayout layout_;
  parallel::Comm comm_;
  long rows_ = 0;
  std::unique_ptr<File> file_;  // rank 0 only
};

}  // namespace eddy::io
