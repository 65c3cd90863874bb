#pragma once
/// The output directory of a run and what goes in it (src/README.md, Output files), shared by every solver:
/// run.log, field files with their XDMF, diagnostics.csv and the progress line.
#include <array>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/run.hpp"
#include "core/error.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "parallel/comm.hpp"

namespace eddy::io {
class DiagnosticsCsv;
class SeriesFile;
struct SeriesLayout;
class XdmfSeries;
struct XdmfGrid;
}  // namespace eddy::io

namespace eddy::sim {
class Simulation;
struct Clock;
}  // namespace eddy::sim

namespace eddy::app {

/// One field to write: this rank's block of it, x fastest, `ncomp` values per cell (0 = scalar).
struct FieldData {
  std::string name;  ///< dataset name (src/README.md, Output files): velocity, density, pressure, vorticity
  const double* data = nullptr;
  int ncomp = 0;
  std::string units;  ///< stored as the dataset's `units` attribute
};

/// A small array written whole beside the fields (e.g. the energy spectrum), the same on every rank.
struct GlobalData {
  std::string name;
  std::vector<double> values;
  std::string units;             ///< stored as the dataset's `units` attribute
  std::vector<index_t> shape{};  ///< the dataset's shape, slowest first (empty: 1D, values.size())
};

/// Geometry of the field files: the global grid, this rank's box and the cell size.
struct FieldGrid {
  io::Block block;
  Real3 spacing{1.0, 1.0, 1.0};    ///< cell size per direction [m]
  std::array<bool, 3> periodic{};  ///< the axes the domain wraps (probes interpolate across them)
};

/// The output directory's lock, `<dir>/eddy.lock`, held from before the restart lookup to the end of the
/// run, so that two runs never write one directory: an flock() of rank 0 (the other ranks of the run take
/// none, so they never refuse each other), which the system releases whenever the process ends, however
/// it ends, so a lock left by a dead process is no lock. Another live holder is InputError naming its
/// host and pid. Creates the directory when it is missing. Collective.
class OutputLock {
 public:
  OutputLock(const std::filesystem::path& dir, const parallel::Comm& comm);
  ~OutputLock();
  /// After bad input (every rank together): the directories the lock made go again, lock and all, when
  /// nothing else was written there. Collective.
  void remove_if_unused();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  parallel::Comm comm_;
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> created_;  ///< directories this lock made, innermost first
  int fd_ = -1;
};

/// f() while this run holds its output directory's lock (eddy run, eddy optimize): one run per output
/// directory. Bad input found by every rank together (InputError) leaves no directory the lock made.
template <class F>
auto with_output_lock(const std::filesystem::path& dir, const parallel::Comm& comm, F&& f) {
  OutputLock lock(dir, comm);
  try {
    return f();
  } catch (const InputError&) {
    lock.remove_if_unused();
    throw;
  }
}

class RunOutput {
 public:
  /// Create the directory (collectively; InputError if it cannot be made), open run.log and log the
  /// build, device and resolved config. A fresh start with opt.overwrite removes the checkpoints of the
  /// run that used the directory before.
  RunOutput(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm);
  ~RunOutput();

  const std::filesystem::path& dir() const { return dir_; }
  const parallel::Comm& comm() const { return comm_; }
  /// The directory a run will use: --out, else output.dir, else out/<name>.
  static std::filesystem::path directory(const config::RunSpec& spec, const RunOptions& opt);

  /// A restart from `step`: diagnostics.csv and fields.xmf keep what the earlier run wrote up to it.
  void resume_at(long step);
  /// Start diagnostics.csv with these columns (after step,time).
  void open_diagnostics(const std::vector<std::string>& columns);
  /// Another time series in the run directory (`file`, e.g. coefficients.csv; columns after step,time):
  /// new, or on a restart continued like diagnostics.csv, its earlier rows in earlier_rows().
  std::unique_ptr<io::DiagnosticsCsv> open_csv(const std::string& file,
                                               const std::vector<std::string>& columns) const;
  /// A time series in HDF5 in the run directory (`file`, e.g. probes.h5; io/hdf5/series_file.hpp): new,
  /// or on a restart continued after its rows up to the restart step.
  std::unique_ptr<io::SeriesFile> open_series(const std::string& file, const io::SeriesLayout& layout) const;
  /// An XDMF time series in the run directory (`file`, e.g. slices/run_z16.xmf): new, or on a restart
  /// continued after its times up to the restart step (io::XdmfSeries::open_append).
  std::unique_ptr<io::XdmfSeries> open_xdmf_series(const std::string& file) const;
  /// diagnostics.csv (after open_diagnostics): on a restart its earlier_rows() continue what the
  /// diagnostics derive from earlier rows (differences in time, validation series).
  const io::DiagnosticsCsv& diagnostics_csv() const { return *csv_; }
  /// Append a row to diagnostics.csv.
  void diagnostics(long step, double time, const std::vector<double>& values);

  /// Write fields/<name>_<step>.h5 with the standard attributes, its .xmf, and extend fields.xmf: the
  /// fields of output.fields.variables (all when it is empty) in output.fields.precision. `globals` are
  /// written as 1D datasets beside them.
  void write_fields(long step, double time, const FieldGrid& grid, const std::vector<FieldData>& fields,
                    const std::vector<GlobalData>& globals = {});
  /// Write stats/<name>_<step>.h5 (running statistics): `fields` in FP64, `globals` beside them and the
  /// numeric root `attributes`, with the standard attributes and coordinates; its .xmf, and extend
  /// stats/stats.xmf (on a restart continued after the times up to the restart step).
  void write_statistics(long step, double time, const FieldGrid& grid, const std::vector<FieldData>& fields,
                        const std::vector<GlobalData>& globals,
                        const std::vector<std::pair<std::string, double>>& attributes);
  /// The fields of a failed run: fields/FAILED_<name>_<step>.h5, not part of the time series.
  void write_failed_fields(long step, double time, const FieldGrid& grid,
                           const std::vector<FieldData>& fields);

  /// The writer of field files and checkpoints as configured (output.writer; FieldFile::create resolves
  /// automatic for the job's rank count).
  io::WriteMode writer() const { return writer_; }
  /// Add a checkpoint's bytes and time to the run's tally (field files are counted as written).
  void count_checkpoint(const io::WriteStats& stats) { checkpoints_.add(stats); }
  /// run.log lines with the field files and checkpoints written: count, bytes, time and bandwidth.
  void log_write_bandwidth() const;

  /// "12 s", "3.4 min", "1.2 h".
  static std::string duration(double seconds);

  /// Files written by one writer, summed: bytes of their datasets and their create-to-commit times.
  struct WriteTally {
    long files = 0;
    double bytes = 0.0;
    double seconds = 0.0;
    void add(const io::WriteStats& s) { ++files, bytes += double(s.bytes), seconds += s.seconds; }
    /// "12 written, 1.53 GB in 2.1 s, 0.73 GB/s" or "none written".
    std::string text() const;
  };

 private:
  /// The field file `h5`; `as_configured`: only output.fields.variables, in output.fields.precision
  /// (the time series), else every field in FP64 (a failed run's state, statistics).
  io::XdmfGrid write_file(const std::filesystem::path& h5, long step, double time, const FieldGrid& grid,
                          const std::vector<FieldData>& fields, const std::vector<GlobalData>& globals,
                          bool as_configured,
                          const std::vector<std::pair<std::string, double>>& attributes = {});
  const config::RunSpec& spec_;
  parallel::Comm comm_;
  std::filesystem::path dir_;
  std::unique_ptr<io::DiagnosticsCsv> csv_;
  std::unique_ptr<io::XdmfSeries> series_, stats_series_;
  long resume_step_ = -1;
  io::WriteMode writer_ = io::WriteMode::automatic;
  WriteTally fields_, checkpoints_;
};

/// What a checkpoint of this run records about it (step, time, dt and lineage left empty): solver, its
/// scheme (lattice or time stepper), precision, grid and the resolved config.
io::CheckpointMeta checkpoint_meta(const config::RunSpec& spec, const std::string& solver,
                                   const std::string& scheme);

struct Restart {
  std::string path;  ///< empty: a fresh start
  io::CheckpointMeta meta;
};
/// The checkpoint a `--restart` names (none when opt.restart is empty), checked against the run before
/// anything is written: usable for a state of `layout` (io::find_checkpoint), and solver, scheme
/// (`scheme_key` names its config key), precision and grid must match, else InputError; physics that
/// differ (physics.*, boundaries.*, geometry.bodies and wall, numerics.collision, trt_magic, les,
/// hyperviscosity) are InputError
/// unless opt.allow_physics_change. A fresh start into a directory that holds checkpoints is InputError
/// unless opt.overwrite. Each solver then checks its own time step. Collective.
Restart find_restart(const config::RunSpec& spec, const RunOptions& opt, const io::CheckpointMeta& now,
                     const std::string& scheme_key, const io::StateLayout& layout,
                     const parallel::Comm& comm);

/// A restart, before anything is written: the time series `file` of the output directory (columns after
/// step,time) must be one the run can continue (io::DiagnosticsCsv::check_append), else InputError.
/// Collective.
void check_resume(const config::RunSpec& spec, const RunOptions& opt, const std::string& file,
                  const std::vector<std::string>& columns, const parallel::Comm& comm);
/// The same for a time series in HDF5 (io::SeriesFile::check_append). Collective.
void check_resume(const config::RunSpec& spec, const RunOptions& opt, const std::string& file,
                  const io::SeriesLayout& layout, const parallel::Comm& comm);

/// The end of every solver's run: the initial actions (fresh starts only), the checkpoint schedule, the
/// run, a checkpoint when it stops early, and the summary lines in run.log. `points` are the cells or
/// grid points one step updates; `rate_unit` names the throughput ("MLUPS" for the LBM, "million
/// points/s" for the spectral solver, printed as "(.. million points/s)").
RunResult run_to_end(sim::Simulation& simulation, const config::RunSpec& spec, const RunOutput& out,
                     long start_step, bool restarted,
                     const std::function<void(const sim::Clock&)>& write_checkpoint, double points,
                     bool lbm_rate);

/// run.log lines with each rank's peak host (resident) and device memory: rank 0's, the median and the
/// largest. Collective.
void log_memory(const parallel::Comm& comm);
/// A run.log line `WHAT: rank 0 X UNIT, median Y UNIT, max Z UNIT over N rank(s)` of one number per rank
/// (`mine` / `unit`). Collective.
void log_spread(const parallel::Comm& comm, const std::string& what, double mine, double unit,
                const std::string& unit_name);

}  // namespace eddy::app
