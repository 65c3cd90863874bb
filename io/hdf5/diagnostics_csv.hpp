#pragma once
/// diagnostics.csv (src/README.md, Output files): one row per diagnostics interval, `step,time,<columns...>`.
///
/// Rank 0 owns the file; every member function is collective (call it on every rank with the same
/// values, which diagnostics are after their reductions) so that a failure on rank 0 (disk full)
/// becomes the same eddy::Error on every rank. Each row is flushed as it is written, so the file is
/// current while a job runs and loses at most the row being written when it is killed.
///
/// Number format: the step as an integer; time and values as the shortest decimal that reads back
/// as exactly the same double (std::to_chars), e.g. `0.1`, `1.2345678901234567e-05`, `nan`, `inf`.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "parallel/comm.hpp"

namespace eddy::io {

class DiagnosticsCsv {
 public:
  /// Create (or truncate) `path` and write the header `step,time,<columns...>`.
  DiagnosticsCsv(const std::string& path, std::vector<std::string> columns, const parallel::Comm& comm);
  /// Restart: keep the rows of an earlier run with step <= keep_up_to_step, drop later ones (written
  /// after the checkpoint being restarted from) and a torn last line, then append. A missing file is
  /// created. eddy::InputError when the existing header differs from this run's columns.
  static DiagnosticsCsv open_append(const std::string& path, std::vector<std::string> columns,
                                    const parallel::Comm& comm, long keep_up_to_step);

  /// Whether open_append would continue `path` (its header names these columns, or it does not exist),
  /// reading only; eddy::InputError otherwise. A restart asks before it writes anything. Collective.
  static void check_append(const std::string& path, std::vector<std::string> columns,
                           const parallel::Comm& comm);

  DiagnosticsCsv(DiagnosticsCsv&&) noexcept = default;
  DiagnosticsCsv& operator=(DiagnosticsCsv&&) noexcept = default;

  /// Append one row; `values` in the order of the columns.
  void row(long step, double time, const std::vector<double>& values);

  /// After open_append: the rows kept from the earlier run, each {step, time, values...} as written
  /// (the numbers read back exactly), on every rank; empty for a new file.
  const std::vector<std::vector<double>>& earlier_rows() const { return earlier_; }
  /// Where column `name` sits in a row of earlier_rows() (step is 0, time 1); eddy::Error if none.
  std::size_t position(const std::string& name) const;

  const std::string& path() const { return path_; }
  const std::vector<std::string>& columns() const { return columns_; }
  /// The header line, without the newline.
  std::string header() const;

 private:
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  DiagnosticsCsv(std::string path, std::vector<std::string> columns, const parallel::Comm& comm, bool);
  void open(const std::string& initial_text);

  std::string path_;
  std::vector<std::string> columns_;
  parallel::Comm comm_;
  std::vector<std::vector<double>> earlier_;  // open_append's kept rows
  std::unique_ptr<std::FILE, Close> file_;    // rank 0 only
};

}  // namespace eddy::io
