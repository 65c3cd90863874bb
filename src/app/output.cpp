#include "app/output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "io/config/config.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "io/hdf5/field_file.hpp"
#include "io/hdf5/series_file.hpp"
#include "io/hdf5/xdmf.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
namespace fs = std::filesystem;
using log::cat;

fs::path RunOutput::directory(const config::RunSpec& spec, const RunOptions& opt) {
  if (!opt.out_dir.empty()) return opt.out_dir;
  if (!spec.output.dir.empty()) return spec.output.dir;
  return fs::path("out") / spec.name;
}

OutputLock::OutputLock(const fs::path& dir, const parallel::Comm& comm) : comm_(comm), dir_(dir) {
  std::string err;
  if (comm.root()) {
    std::error_code ec;
    for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
      created_.push_back(p);
      if (p == p.parent_path()) break;
    }
    fs::create_directories(dir, ec);
    const std::string lock = (dir / "eddy.lock").string();
    if (ec)
      err = cat(dir.string(), ": cannot create the output directory (", ec.message(),
                "); choose a writable place with --out DIR or output.dir");
    else if ((fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
      err = cat(lock, ": cannot open the output directory's lock (", std::strerror(errno),
                "); choose a writable place with --out DIR or output.dir");
    else if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int why = errno;
      char holder[256] = {0};
      const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
      std::string who = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "another process";
      while (!who.empty() && who.back() == '\n') who.pop_back();
      ::close(fd_), fd_ = -1;
      created_.clear();
      err = why == EWOULDBLOCK
                ? cat(dir.string(), ": another eddy run is writing this output directory (", who, ", lock ",
                      lock, "); wait for it to end, or give this run another --out DIR")
                : cat(lock, ": cannot lock the output directory (", std::strerror(why), ")");
    } else {
      const std::string me = cat("pid ", ::getpid(), " on host ", parallel::Comm::hostname(), "\n");
      if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != ssize_t(me.size()))
        log::warn(cat(lock, ": cannot record this run in the lock (", std::strerror(errno), ")"));
    }
  }
  err = comm.broadcast(err);
  if (!err.empty()) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw InputError(err);
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void OutputLock::remove_if_unused() {
  if (comm_.root() && fd_ >= 0 && !created_.empty()) {
    std::error_code ec;
    bool only_lock = true;
    for (const auto& e : fs::directory_iterator(dir_, ec))
      only_lock = only_lock && e.path().filename() == "eddy.lock";
    if (only_lock && !ec && fs::remove(dir_ / "eddy.lock", ec)) {
      ::close(fd_), fd_ = -1;
      for (const fs::path& p : created_)
        if (!fs::remove(p, ec)) break;  // not empty: something else is there
    }
  }
  comm_.barrier();
}

RunOutput::RunOutput(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm)
    : spec_(spec),
      comm_(comm),
      dir_(directory(spec, opt)),
      writer_(io::parse_write_mode(spec.output.writer)) {
  std::string err;
  if (comm.root()) {
    std::error_code ec;
    if (opt.overwrite && opt.restart.empty()) fs::remove_all(dir_ / "checkpoints", ec);
    fs::create_directories(dir_ / "fields", ec);
    if (ec)
      err = cat(dir_.string(), ": cannot create the output directory (", ec.message(),
                "); choose a writable place with --out DIR or output.dir");
  }
  err = comm.broadcast(err);
  if (!err.empty()) throw InputError(err);
  log::set_quiet(opt.quiet);
  log::open_file((dir_ / "run.log").string());
  series_ = open_xdmf_series("fields/fields.xmf");

  const backend::DeviceInfo dev = backend::device_info();
  log::info(cat("eddy ", EDDY_VERSION, " | backend ", dev.backend, " | device ", dev.name,
                dev.device_count ? cat(" (", dev.memory_gib, " GiB)") : cat(", ", dev.threads, " threads"),
                " | ", comm.size(), " MPI rank(s) | HDF5 ", io::hdf5_is_parallel() ? "parallel" : "serial",
                ", ", io::to_string(io::resolve_write_mode(writer_, comm.size())), " writer | ",
                dev.runtime));
  log::info(cat("config ", spec.source_file, " -> ", dir_.string()));
  log::info("resolved config:\n" + spec.resolved_yaml);
}

RunOutput::~RunOutput() { log::open_file(""); }

void RunOutput::resume_at(long step) {
  resume_step_ = step;
  series_ = open_xdmf_series("fields/fields.xmf");
}

std::unique_ptr<io::XdmfSeries> RunOutput::open_xdmf_series(const std::string& file) const {
  const std::string path = (dir_ / file).string();
  if (resume_step_ >= 0)
    return std::make_unique<io::XdmfSeries>(io::XdmfSeries::open_append(path, comm_, resume_step_));
  return std::make_unique<io::XdmfSeries>(path, comm_);
}

void RunOutput::open_diagnostics(const std::vector<std::string>& columns) {
  csv_ = open_csv("diagnostics.csv", columns);
}

std::unique_ptr<io::DiagnosticsCsv> RunOutput::open_csv(const std::string& file,
                                                        const std::vector<std::string>& columns) const {
  const std::string path = (dir_ / file).string();
  if (resume_step_ >= 0)
    return std::make_unique<io::DiagnosticsCsv>(
        io::DiagnosticsCsv::open_append(path, columns, comm_, resume_step_));
  return std::make_unique<io::DiagnosticsCsv>(path, columns, comm_);
}

std::unique_ptr<io::SeriesFile> RunOutput::open_series(const std::string& file,
                                                       const io::SeriesLayout& layout) const {
  const std::string path = (dir_ / file).string();
  if (resume_step_ >= 0)
    return std::make_unique<io::SeriesFile>(io::SeriesFile::open_append(path, layout, comm_, resume_step_));
  return std::make_unique<io::SeriesFile>(io::SeriesFile::create(path, layout, comm_));
}

void RunOutput::diagnostics(long step, double time, const std::vector<double>& values) {
  if (csv_) csv_->row(step, time, values);
}

void RunOutput::write_failed_fields(long step, double time, const FieldGrid& grid,
                                    const std::vector<FieldData>& fields) {
  write_file(dir_ / "fields" / io::step_file_name("FAILED_" + spec_.name, step, ".h5"), step, time, grid,
             fields, {}, false);
}

void RunOutput::write_fields(long step, double time, const FieldGrid& grid,
                             const std::vector<FieldData>& fields, const std::vector<GlobalData>& globals) {
  const fs::path h5 = dir_ / "fields" / io::step_file_name(spec_.name, step, ".h5");
  io::XdmfGrid x = write_file(h5, step, time, grid, fields, globals, true);
  io::write_xdmf((dir_ / "fields" / io::step_file_name(spec_.name, step, ".xmf")).string(), x, comm_);
  series_->add(x);
}

void RunOutput::write_statistics(long step, double time, const FieldGrid& grid,
                                 const std::vector<FieldData>& fields, const std::vector<GlobalData>& globals,
                                 const std::vector<std::pair<std::string, double>>& attributes) {
  const fs::path h5 = dir_ / "stats" / io::step_file_name(spec_.name, step, ".h5");
  if (comm_.root()) {
    std::error_code ec;
    fs::create_directories(h5.parent_path(), ec);
  }
  comm_.barrier();
  io::XdmfGrid x = write_file(h5, step, time, grid, fields, globals, false, attributes);
  if (fields.empty()) return;  // profiles alone (output.statistics.per_cell: false): nothing to view in 3D
  io::write_xdmf((dir_ / "stats" / io::step_file_name(spec_.name, step, ".xmf")).string(), x, comm_);
  if (!stats_series_) stats_series_ = open_xdmf_series("stats/stats.xmf");
  stats_series_->add(x);
}

io::XdmfGrid RunOutput::write_file(const fs::path& h5, long step, double time, const FieldGrid& grid,
                                   const std::vector<FieldData>& fields,
                                   const std::vector<GlobalData>& globals, bool as_configured,
                                   const std::vector<std::pair<std::string, double>>& attributes) {
  const io::Block& b = grid.block;
  io::FieldFile f = io::FieldFile::create(h5.string(), b, comm_, writer_);
  f.set_attribute("solver", spec_.solver);
  f.set_attribute("step", step);
  f.set_attribute("time", time);
  f.set_attribute("dimensions", static_cast<long>(b.dims));
  f.set_attribute("domain_length", spec_.domain.length);
  f.set_attribute("resolved_config", spec_.resolved_yaml);
  f.set_attribute("eddy_version", EDDY_VERSION);
  f.set_attribute("backend", backend::name());
  f.set_attribute("ranks", static_cast<long>(comm_.size()));
  for (const auto& [name, value] : attributes) f.set_attribute(name, value);
  const std::vector<std::string>& wanted = spec_.output.fields.variables;
  const bool fp32 = as_configured && spec_.output.fields.precision == "fp32";
  std::vector<float> narrow;
  for (const FieldData& d : fields) {
    if (as_configured && !wanted.empty() && std::find(wanted.begin(), wanted.end(), d.name) == wanted.end())
      continue;
    if (fp32) {  // rounded to nearest, as a float cast does
      narrow.assign(d.data, d.data + b.local_cells() * std::max(d.ncomp, 1));
      d.ncomp > 0 ? f.write_vector(d.name, narrow.data(), d.ncomp) : f.write_scalar(d.name, narrow.data());
    } else {
      d.ncomp > 0 ? f.write_vector(d.name, d.data, d.ncomp) : f.write_scalar(d.name, d.data);
    }
    if (!d.units.empty()) f.set_dataset_attribute(d.name, "units", d.units);
  }
  for (const GlobalData& g : globals) {
    if (g.shape.empty())
      f.write_global(g.name, g.values);
    else
      f.write_global(g.name, g.values.data(), g.shape);
    if (!g.units.empty()) f.set_dataset_attribute(g.name, "units", g.units);
  }
  std::vector<double> xyz[3];
  for (int d = 0; d < b.dims; ++d)
    for (index_t k = 0; k < b.global[static_cast<std::size_t>(d)]; ++k)
      xyz[d].push_back((k + 0.5) * grid.spacing[static_cast<std::size_t>(d)]);
  f.write_coordinates(xyz[0], xyz[1], xyz[2]);
  io::XdmfGrid x;
  x.h5_file = h5.filename().string();
  x.step = step;
  x.time = time;
  x.dims = b.dims;
  x.cells = b.global;
  x.spacing = grid.spacing;
  x.fields = f.fields();
  f.commit();
  fields_.add(f.stats());
  return x;
}

std::string RunOutput::WriteTally::text() const {
  if (files == 0) return "none written";
  char b[160];
  std::snprintf(b, sizeof b, "%ld written, %.3g GB in %.3g s, %.3g GB/s", files, bytes * 1e-9, seconds,
                seconds > 0 ? bytes * 1e-9 / seconds : 0.0);
  return b;
}

void RunOutput::log_write_bandwidth() const {
  const std::string writer =
      cat(" (", io::to_string(io::resolve_write_mode(writer_, comm_.size())), " writer)");
  log::info("field files: " + fields_.text() + writer);
  log::info("checkpoints: " + checkpoints_.text() + writer);
}

io::CheckpointMeta checkpoint_meta(const config::RunSpec& spec, const std::string& solver,
                                   const std::string& scheme) {
  io::CheckpointMeta m;
  m.solver = solver, m.scheme = scheme, m.precision = spec.numerics.precision;
  m.cells.assign(spec.domain.cells.begin(), spec.domain.cells.end());
  m.resolved_config = spec.resolved_yaml;
  return m;
}

namespace {

/// The physics of a checkpoint's resolved config that differ from the run's, as "section (lines)" items
/// joined by "; " ("" when they agree). Everything else (run length, outputs, parallel settings, the
/// initial condition) may change at a restart.
std::string physics_changes(const config::RunSpec& now, const std::string& path, const std::string& yaml) {
  config::RunSpec was;
  try {
    was = config::load_text(yaml, path + " (resolved_config)");
  } catch (const std::exception& e) {
    log::warn(cat("--restart ", path, ": the physics are not compared, its resolved_config does not load (",
                  e.what(), ")"));
    return "";
  }
  using Copy = void (*)(config::RunSpec&, const config::RunSpec&);
  const std::pair<const char*, Copy> parts[] = {
      {"physics", [](config::RunSpec& x, const config::RunSpec& w) { x.physics = w.physics; }},
      {"boundaries", [](config::RunSpec& x, const config::RunSpec& w) { x.boundaries = w.boundaries; }},
      {"geometry.bodies, wall",
       [](config::RunSpec& x, const config::RunSpec& w) {
         x.geometry.bodies = w.geometry.bodies, x.geometry.wall = w.geometry.wall;
       }},
      {"numerics.collision, trt_magic, les",
       [](config::RunSpec& x, const config::RunSpec& w) {
         x.numerics.collision = w.numerics.collision, x.numerics.trt_magic = w.numerics.trt_magic,
         x.numerics.les = w.numerics.les;
       }},
      {"numerics.hyperviscosity", [](config::RunSpec& x, const config::RunSpec& w) {
         x.numerics.hyperviscosity = w.numerics.hyperviscosity,
         x.numerics.hyperviscosity_order = w.numerics.hyperviscosity_order;
       }}};
  auto lines = [](const std::string& text) {
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
      v.push_back(l.substr(std::min(l.find_first_not_of(' '), l.size())));
    return v;
  };
  const std::vector<std::string> mine = lines(config::to_yaml(now));
  std::string changes;
  for (const auto& [name, copy] : parts) {
    config::RunSpec x = now;
    copy(x, was);
    if (config::same_settings(x, now)) continue;
    const std::vector<std::string> theirs = lines(config::to_yaml(x));
    std::string diff;
    int shown = 0;
    for (std::size_t k = 0; k < std::min(mine.size(), theirs.size()) && shown < 4; ++k)
      if (mine[k] != theirs[k]) diff += cat(shown++ ? ", " : "", "'", theirs[k], "' -> '", mine[k], "'");
    changes += cat(changes.empty() ? "" : "; ", name, diff.empty() ? std::string() : " (" + diff + ")");
  }
  return changes;
}

}  // namespace

Restart find_restart(const config::RunSpec& spec, const RunOptions& opt, const io::CheckpointMeta& now,
                     const std::string& scheme_key, const io::StateLayout& layout,
                     const parallel::Comm& comm) {
  Restart r;
  const fs::path dir = RunOutput::directory(spec, opt);
  if (opt.restart.empty()) {
    std::string earlier;
    if (comm.root() && !opt.overwrite) {
      const std::vector<fs::path> found = io::list_checkpoints(dir / "checkpoints");
      for (std::size_t k = 0; k < found.size() && k < 3; ++k)
        earlier += cat(k ? ", " : "", found[k].filename().string());
      if (found.size() > 3) earlier += cat(" and ", found.size() - 3, " more");
    }
    earlier = comm.broadcast(earlier);
    if (!earlier.empty())
      throw InputError(cat(dir.string(), ": the output directory holds checkpoints of an earlier run (",
                           earlier,
                           "); continue that run with --restart auto, write this one to another --out DIR, "
                           "or start afresh here with --overwrite (deletes those checkpoints)"));
    return r;
  }
  if (opt.overwrite)
    throw InputError("--overwrite starts a run afresh; it does not go with --restart " + opt.restart);
  r.path = io::find_checkpoint(dir, opt.restart, layout, comm);
  r.meta = io::read_checkpoint_meta(r.path);
  auto text = [](const std::vector<long>& v) {
    std::string t;
    for (long n : v) t += (t.empty() ? "[" : ", ") + std::to_string(n);
    return t + "]";
  };
  const std::string checks[][3] = {{"solver", r.meta.solver, now.solver},
                                   {scheme_key, r.meta.scheme, now.scheme},
                                   {"precision (numerics.precision)", r.meta.precision, now.precision},
                                   {"grid (domain.cells)", text(r.meta.cells), text(now.cells)}};
  for (const auto& k : checks)
    if (k[1] != k[2])
      throw InputError(
          cat("--restart ", r.path, ": the checkpoint's ", k[0], " is ", k[1], " but the config's is ", k[2],
              "; restart with the config that wrote it (its resolved_config attribute) or start afresh"));
  const std::string changes = physics_changes(spec, r.path, r.meta.resolved_config);
  if (!changes.empty() && !opt.allow_physics_change)
    throw InputError(cat("--restart ", r.path,
                         ": the config's physics differ from the checkpoint's: ", changes,
                         "; restart with the config that wrote it (its resolved_config attribute), start "
                         "afresh (another --out DIR, or --overwrite), or pass --allow-physics-change to "
                         "continue this state under the new physics"));
  if (!changes.empty() && comm.root())
    log::warn(cat("--restart ", r.path,
                  " with --allow-physics-change: the physics differ from the checkpoint's: ", changes));
  return r;
}

void check_resume(const config::RunSpec& spec, const RunOptions& opt, const std::string& file,
                  const std::vector<std::string>& columns, const parallel::Comm& comm) {
  io::DiagnosticsCsv::check_append((RunOutput::directory(spec, opt) / file).string(), columns, comm);
}

void check_resume(const config::RunSpec& spec, const RunOptions& opt, const std::string& file,
                  const io::SeriesLayout& layout, const parallel::Comm& comm) {
  io::SeriesFile::check_append((RunOutput::directory(spec, opt) / file).string(), layout, comm);
}

RunResult run_to_end(sim::Simulation& simulation, const config::RunSpec& spec, const RunOutput& out,
                     long start_step, bool restarted,
                     const std::function<void(const sim::Clock&)>& write_checkpoint, double points,
                     bool lbm_rate) {
  if (!restarted) simulation.run_actions_now();
  // Registered after the initial actions: the initial state needs no checkpoint.
  if (spec.output.checkpoint.every.enabled())
    simulation.add("checkpoint", spec.output.checkpoint.every, write_checkpoint);
  const sim::StopReason why = simulation.run();
  const sim::Clock& clk = simulation.clock();
  RunResult r;
  r.interrupted = why == sim::StopReason::requested || why == sim::StopReason::wall_time;
  const bool stepped = clk.step > start_step;
  // A restart stopped before its first step keeps the checkpoint it started from as the newest; a fresh
  // run checkpoints its initial state, so that --restart auto continues either.
  if (r.interrupted && (stepped || !restarted)) write_checkpoint(clk);
  if (r.interrupted && !stepped)
    log::warn(cat(sim::to_string(why), " before the first step (during the set-up); ",
                  restarted ? "the checkpoint it restarted from is still the newest"
                            : "the initial state is checkpointed",
                  ": continue with --restart auto (exit 75)"));
  r.steps = clk.step;
  r.time = clk.time;
  r.stop_reason = sim::to_string(why);
  r.out_dir = out.dir().string();
  const double step_s = simulation.step_seconds();
  const long done = clk.step - start_step;
  r.mlups = step_s > 0 ? points * double(done) / step_s / 1e6 : 0.0;
  r.ms_per_step = done > 0 ? 1e3 * step_s / double(done) : 0.0;
  if (lbm_rate)
    log::info(cat("stopped at step ", clk.step, ", t = ", clk.time, " s: ", r.stop_reason, "; ", r.mlups,
                  " MLUPS over the run"));
  else
    log::info(cat("stopped at step ", clk.step, ", t = ", clk.time, " s: ", r.stop_reason, "; ",
                  r.ms_per_step, " ms/step (", r.mlups, " million points/s) over the run"));
  for (const sim::Timing& t : simulation.timings())
    log::info(cat("  time in ", t.name, ": ", t.seconds, " s over ", t.calls, " calls"));
  out.log_write_bandwidth();
  log_memory(out.comm());
  return r;
}

void log_spread(const parallel::Comm& comm, const std::string& what, double mine, double unit,
                const std::string& unit_name) {
  // One number per rank, gathered: O(ranks), not O(cells).
  std::vector<double> all;
  for (const std::string& s : comm.allgather(std::to_string(mine))) all.push_back(std::stod(s));
  std::vector<double> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  log::info(cat(what, ": rank 0 ", all[0] / unit, " ", unit_name, ", median ", median / unit, " ", unit_name,
                ", max ", sorted.back() / unit, " ", unit_name, " over ", n, " rank(s)"));
}

void log_memory(const parallel::Comm& comm) {
  log_spread(comm, "peak host memory (resident)", double(peak_resident_bytes()), 1048576.0, "MiB");
  log_spread(comm, "peak device memory (eddy's allocations)", double(backend::memory_usage().peak), 1048576.0,
             "MiB");
}

std::string RunOutput::duration(double s) {
  char b[32];
  if (s < 120)
    std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < 7200)
    std::snprintf(b, sizeof b, "%.1f min", s / 60);
  else
    std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  return b;
}

}  // namespace eddy::app
