#include "app/bench.hpp"

#include <unistd.h>  // sysconf: host memory

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <vector>

#include "app/lbm_case.hpp"
#include "app/output.hpp"
#include "app/spectral_case.hpp"
#include "backend/backend.hpp"
#include "backend/profile.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "eddy_git_commit.hpp"  // generated: EDDY_GIT_COMMIT
#include "field/moments.hpp"
#include "field/profile.hpp"
#include "io/hdf5/checkpoint.hpp"
#include "io/hdf5/field_file.hpp"
#include "parallel/transport.hpp"
#include "parallel/transpose.hpp"

namespace eddy::app {
using log::cat;

namespace {

/// Median, min and max of repeated timings.
struct Spread {
  std::vector<double> values;
  double median = 0, min = 0, max = 0;
  explicit Spread(std::vector<double> v) : values(std::move(v)) {
    std::vector<double> s = values;
    std::sort(s.begin(), s.end());
    median = s[s.size() / 2], min = s.front(), max = s.back();
  }
};

/// The one timing loop of eddy bench: `warmup` calls, then `repeats` times `steps` calls, each repetition
/// fenced on the device and barrier-synchronised over the ranks before and after. Seconds per repetition.
std::vector<double> time_repeats(long warmup, long steps, int repeats, const std::function<void()>& step,
                                 const parallel::Comm& comm) {
  for (long k = 0; k < warmup; ++k) step();
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    backend::fence();
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) step();
    backend::fence();
    comm.barrier();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return seconds;
}

/// Step graphs (backend/graph.hpp) against kernel-by-kernel launches in the same run: where the timed
/// steps ran as recorded graphs (`recordings` > 0), the same repeats again with graphs off. Seconds per
/// repetition; empty where nothing was recorded (CPU backend, several ranks, band-limited forcing).
std::vector<double> time_without_graphs(int recordings, const std::function<void(bool)>& set_graphs,
                                        long warmup, long steps, int repeats,
                                        const std::function<void()>& step, const parallel::Comm& comm) {
  if (recordings == 0) return {};
  set_graphs(false);
  std::vector<double> seconds = time_repeats(warmup, steps, repeats, step, comm);
  set_graphs(true);
  return seconds;
}

/// Steps per repetition: --steps, else about 1e9 point updates (at least 10).
long default_steps(const BenchOptions& opt, double points) {
  return opt.steps > 0 ? opt.steps : std::max(10L, static_cast<long>(1e9 / points));
}

std::string json_list(const std::vector<double>& v) {
  std::ostringstream o;
  o << "[";
  for (std::size_t k = 0; k < v.size(); ++k) o << (k ? ", " : "") << v[k];
  o << "]";
  return o.str();
}

/// A JSON string literal (quotes, backslashes and control characters escaped).
std::string json_string(const std::string& v) {
  std::string o = "\"";
  for (const char ch : v) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += ch;
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", u);
      o += esc;
    } else {
      o += ch;
    }
  }
  return o + "\"";
}

std::string json_list(const std::vector<std::string>& v) {
  std::string o = "[";
  for (std::size_t k = 0; k < v.size(); ++k) o += (k ? ", " : "") + json_string(v[k]);
  return o + "]";
}

/// A JSON object of `"key": value` items.
std::string json_object(const std::vector<std::string>& items) {
  std::string o = "{";
  for (std::size_t k = 0; k < items.size(); ++k) o += (k ? ", " : "") + items[k];
  return o + "}";
}

template <class T>
std::string kv(const char* key, const T& v) {
  std::ostringstream o;
  o << "\"" << key << "\": " << v;
  return o.str();
}
std::string kv_text(const char* key, const std::string& v) { return cat("\"", key, "\": ", json_string(v)); }

/// One timed figure: `key` (every repetition), `key_median`, `key_min`, `key_max`.
std::vector<std::string> kv_spread(const std::string& key, const Spread& s) {
  return {kv(key.c_str(), json_list(s.values)), kv((key + "_median").c_str(), s.median),
          kv((key + "_min").c_str(), s.min), kv((key + "_max").c_str(), s.max)};
}

/// `"key": value` items and groups of them (kv_spread), in order.
std::vector<std::string> items(std::initializer_list<std::vector<std::string>> groups) {
  std::vector<std::string> all;
  for (const auto& g : groups) all.insert(all.end(), g.begin(), g.end());
  return all;
}

/// The JSON items and the log text of the graphs' comparison: `key`_no_graph (the spread) and
/// graph_speedup (median without over median with graphs, in time), or graph_speedup null where no
/// step was recorded.
std::vector<std::string> graph_items(const std::string& key, const std::vector<double>& without,
                                     const std::function<double(double)>& figure, double with_median,
                                     bool higher_is_faster, std::string& text) {
  if (without.empty()) {
    text = "step graphs: not recorded";
    return {kv("graph_speedup", "null")};
  }
  std::vector<double> v;
  for (double s : without) v.push_back(figure(s));
  const Spread m(v);
  const double speedup = higher_is_faster ? with_median / m.median : m.median / with_median;
  text = cat("without step graphs ", m.median, " (min ", m.min, ", max ", m.max, "): graphs ", speedup,
             "x faster");
  std::vector<std::string> out = kv_spread(key + "_no_graph", m);
  out.push_back(kv("graph_speedup", speedup));
  return out;
}

/// The JSON file: the fields every bench writes (what ran, where, from which commit, with which
/// overrides, so that `eddy bench CONFIG --set ...` reproduces it), then the solver's own (`"key": value`
/// items). The one writer of bench JSON.
void write_json(const BenchOptions& opt, const config::RunSpec& spec, const parallel::Comm& comm,
                const std::vector<std::string>& own) {
  if (opt.json.empty() || !comm.root()) return;
  std::ofstream j(opt.json);
  if (!j) throw InputError(opt.json + ": cannot write the bench JSON (--json)");
  const backend::DeviceInfo dev = backend::device_info();
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const std::vector<std::string> common = {kv_text("name", spec.name),
                                           kv_text("date", date),
                                           kv_text("eddy_version", EDDY_VERSION),
                                           kv_text("git_commit", EDDY_GIT_COMMIT),
                                           kv_text("config", opt.config),
                                           kv("overrides", json_list(opt.sets)),
                                           kv("repeats", opt.repeats),
                                           kv_text("backend", dev.backend),
                                           kv_text("device", dev.name),
                                           kv("device_memory_gib", dev.memory_gib),
                                           kv("threads", dev.threads),  // OpenMP threads (CPU backend)
                                           kv("ranks", comm.size()),
                                           kv_text("solver", spec.solver),
                                           kv_text("precision", spec.numerics.precision),
                                           kv_text("comm", spec.parallel.comm)};
  j << "{";
  const char* sep = "\n  ";
  for (const auto* items : {&common, &own})
    for (const std::string& item : *items) {
      j << sep << item;
      sep = ",\n  ";
    }
  j << "\n}\n";
  if (!j.flush()) throw Error(opt.json + ": writing the bench JSON failed");
}

/// One running-statistics sample (output.statistics: the device's add_moments into FP64 sums,
/// field/moments.hpp) timed as the steps are, against the step's median time `step_ms`.
struct StatisticsCost {
  Spread ms;
  double fraction = 0.0;  ///< a sample's median over a step's
  int sums = 0;           ///< FP64 sums per cell
  std::string text(const std::string& fields) const {
    return cat("statistics sample (", fields, ": ", sums, " FP64 sums per cell, ", 16 * sums,
               " B/cell read and written) ", ms.median, " ms (min ", ms.min, ", max ", ms.max,
               ") = ", 100.0 * fraction, "% of a step; sampled every 10 steps ", 10.0 * fraction, "%");
  }
  std::vector<std::string> items() const {
    std::vector<std::string> v{kv("statistics_sums", sums), kv("statistics_fraction", fraction)};
    for (const std::string& x : kv_spread("statistics_sample_ms", ms)) v.push_back(x);
    return v;
  }
};

StatisticsCost time_statistics(const field::MomentLayout& layout, index_t cells, long warmup, long steps,
                               int repeats, double step_ms,
                               const std::function<void(const field::MomentView&)>& sample,
                               const parallel::Comm& comm) {
  backend::DeviceArray<double> sums(static_cast<std::size_t>(cells * layout.count()));
  const std::vector<double> t = time_repeats(
      warmup, steps, repeats,
      [&] {
        sample({sums.data(), cells, layout});
      },
      comm);
  std::vector<double> ms;
  for (double s : t) ms.push_back(1e3 * s / double(steps));
  StatisticsCost c{Spread(ms)};
  c.fraction = c.ms.median / step_ms;
  c.sums = layout.count();
  return c;
}

/// Where a step's time goes: `steps` more calls of `step` with the phase timer on (a fence at every phase
/// switch, so they run slower than the timed repeats and are reported apart), slowest rank per phase,
/// the solver's `phases` in that order (backend/profile.hpp: the LBM's shell, inner and links, the
/// spectral step's pointwise kernels and fft, and the exchanges' pack (with the copy of a rank's own
/// block), wait (for the other ranks to reach the exchange), transfer = the messages or one-sided
/// copies, unpack; "total" sums every phase); with the bytes each rank sends off-rank per step and the
/// bandwidth that is over its transfer time, and the peer bandwidth through a transport of the run's
/// parallel.comm (256 MiB to every other rank; 0 on one rank). One writer for both solvers' "breakdown".
struct Breakdown {
  std::vector<std::string> items;  ///< "phase": ms/step, ..., "total"
  double step_ms = 0.0;            ///< wall time of a profiled step, slowest rank: about "total"
  double sent = 0.0;               ///< bytes per rank and step sent to other ranks
  double bandwidth_gbs = 0.0;      ///< sent / transfer time
  double peer_gbs = 0.0;

  std::string text() const {
    std::string b;
    for (const std::string& e : items) b += (b.empty() ? "" : ", ") + e;
    return b;
  }
};

Breakdown profile_steps(long steps, const std::function<void()>& step, const std::string& comm_mode,
                        const parallel::Comm& comm, const std::vector<backend::PhaseTimer::Phase>& phases) {
  backend::PhaseTimer& timer = backend::phase_timer();
  const auto start = std::chrono::steady_clock::now();
  timer.enable(true);
  for (long k = 0; k < steps; ++k) step();
  timer.settle();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timer.enable(false);
  Breakdown r;
  r.step_ms = 1e3 * comm.max(wall) / double(steps);
  double total_ms = 0.0;  // every phase, also one the list leaves out (none runs today)
  for (int p = 0; p < backend::PhaseTimer::phases; ++p)
    total_ms += 1e3 * comm.max(timer.seconds(static_cast<backend::PhaseTimer::Phase>(p))) / double(steps);
  for (const backend::PhaseTimer::Phase phase : phases)
    r.items.push_back(
        kv(backend::PhaseTimer::name(phase), 1e3 * comm.max(timer.seconds(phase)) / double(steps)));
  r.items.push_back(kv("total", total_ms));
  r.sent = comm.max(double(timer.sent())) / double(steps);
  const double transfer_s = comm.max(timer.seconds(backend::PhaseTimer::transfer)) / double(steps);
  r.bandwidth_gbs = transfer_s > 0 ? r.sent / transfer_s * 1e-9 : 0.0;
  if (comm.size() > 1) {
    const auto transport = parallel::make_transport(comm_mode, comm);
    r.peer_gbs = parallel::exchange_bandwidth(*transport, comm, std::size_t(256) << 20, 20, 5) * 1e-9;
  }
  return r;
}

void log_breakdown(const std::string& name, const char* what, const Breakdown& bd,
                   const parallel::Comm& comm) {
  log::info(cat("bench ", name, ": breakdown (profiled run, ms/step, slowest rank): ", bd.text(),
                " (profiled step ", bd.step_ms, " ms)",
                comm.size() > 1 ? cat("; ", what, " send ", bd.sent / 1048576.0, " MiB/step per rank at ",
                                      bd.bandwidth_gbs, " GB/s, peer bandwidth ", bd.peer_gbs, " GB/s (",
                                      bd.peer_gbs > 0 ? 100.0 * bd.bandwidth_gbs / bd.peer_gbs : 0.0, "%)")
                                : std::string()));
}

/// The write bandwidth of the configured writer (output.writer): one field file holding the velocity (as
/// a run writes it, with the grid's coordinates) and one checkpoint of the benchmarked state, written into
/// a temporary directory that is removed afterwards: `<output.dir or .>/eddy_bench_io.<pid of rank 0>`
/// (a place every rank sees, as the per_rank and collective writers need). Bytes and GB/s of each, over
/// create-to-commit, slowest rank.
struct WriteBandwidth {
  io::WriteStats field, checkpoint;
  std::string writer;

  static double gbps(const io::WriteStats& s) {
    return s.seconds > 0 ? double(s.bytes) / s.seconds * 1e-9 : 0.0;
  }
  std::vector<std::string> items() const {
    return {kv_text("writer", writer),
            kv("field_write_bytes", field.bytes),
            kv("field_write_seconds", field.seconds),
            kv("field_write_GBps", gbps(field)),
            kv("checkpoint_write_bytes", checkpoint.bytes),
            kv("checkpoint_write_seconds", checkpoint.seconds),
            kv("checkpoint_write_GBps", gbps(checkpoint))};
  }
  std::string text() const {
    return cat("write bandwidth (", writer, " writer): field file ", double(field.bytes) / 1e6, " MB in ",
               field.seconds, " s = ", gbps(field), " GB/s; checkpoint ", double(checkpoint.bytes) / 1e6,
               " MB in ", checkpoint.seconds, " s = ", gbps(checkpoint), " GB/s");
  }
};

WriteBandwidth time_writes(const config::RunSpec& spec, const parallel::Comm& comm, const io::Block& block,
                           const Real3& spacing, const std::vector<double>& velocity,
                           const io::CheckpointMeta& meta, const io::CheckpointState& state) {
  namespace fs = std::filesystem;
  const io::WriteMode mode = io::parse_write_mode(spec.output.writer);
  WriteBandwidth w;
  w.writer = io::to_string(io::resolve_write_mode(mode, comm.size()));
  std::string name;
  if (comm.root())
    name = (fs::path(spec.output.dir.empty() ? "." : spec.output.dir) /
            cat("eddy_bench_io.", static_cast<long>(::getpid())))
               .string();
  const fs::path dir = comm.broadcast(name);
  struct Cleanup {
    const parallel::Comm& comm;
    fs::path dir;
    ~Cleanup() {
      comm.barrier();
      std::error_code ec;
      if (comm.root()) fs::remove_all(dir, ec);
    }
  };
  std::string err;
  if (comm.root()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) err = cat(dir.string(), ": cannot create the bench's write directory (", ec.message(), ")");
  }
  err = comm.broadcast(err);
  if (!err.empty()) throw InputError(err);
  const Cleanup cleanup{comm, dir};
  {
    io::FieldFile f = io::FieldFile::create((dir / "fields.h5").string(), block, comm, mode);
    f.set_attribute("solver", spec.solver);
    f.write_vector("velocity", velocity.data(), block.dims);
    std::vector<double> xyz[3];
    for (int d = 0; d < block.dims; ++d)
      for (index_t k = 0; k < block.global[std::size_t(d)]; ++k)
        xyz[d].push_back((double(k) + 0.5) * spacing[std::size_t(d)]);
    f.write_coordinates(xyz[0], xyz[1], xyz[2]);
    f.commit();
    w.field = f.stats();
  }
  io::write_checkpoint(dir, meta, state, 1, comm, mode, &w.checkpoint);
  return w;
}

/// Physical memory of the host, bytes (0 when unknown).
double host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

/// The copy bandwidth the LBM figures are measured against (backend.hpp, copy_bandwidth): the device's
/// best copy at the start and at the end of the bench, the larger one used; the earlier yardstick (an
/// 8-byte parallel_for copy timed by the host clock) beside it.
struct Yardstick {
  static constexpr std::size_t bytes = std::size_t(1) << 30;  // per array
  static constexpr int repeats = 5;
  backend::CopyBandwidth start = backend::copy_bandwidth(bytes, repeats), end;
  double parallel_for_gbs = backend::copy_bandwidth_parallel_for(bytes, repeats);

  void finish() { end = backend::copy_bandwidth(bytes, repeats); }
  const backend::CopyBandwidth& best() const { return end.gbs > start.gbs ? end : start; }
  /// The log's words for a kernel moving `gbs` per device at `bpc` bytes a cell, on `ranks` devices.
  std::string text(double gbs, double bpc, int ranks) const {
    const backend::CopyBandwidth& b = best();
    return cat(100.0 * gbs / b.gbs, "% of the measured copy bandwidth (", b.gbs, " GB/s per device x ", ranks,
               ": ", b.method, "; start ", start.gbs, ", end ", end.gbs, " GB/s), roofline ",
               ranks * b.gbs * 1e3 / bpc, " MLUPS at ", bpc, " B/cell; ", 100.0 * gbs / parallel_for_gbs,
               "% of the earlier yardstick (8-byte parallel_for copy, host clock: ", parallel_for_gbs,
               " GB/s)");
  }
  std::vector<std::string> items(double gbs, double bpc, int ranks) const {
    const backend::CopyBandwidth& b = best();
    std::vector<std::string> methods;
    for (const auto& [method, m] : b.methods)
      methods.push_back(kv(method.c_str(), m));  // the words need no escaping
    return {kv("copy_bandwidth_gbs", b.gbs),
            kv_text("copy_bandwidth_method", b.method),
            kv("copy_bandwidth_start_gbs", start.gbs),
            kv("copy_bandwidth_end_gbs", end.gbs),
            kv("copy_bandwidth_methods", json_object(methods)),
            kv("bandwidth_fraction", gbs / b.gbs),
            kv("roofline_mlups", ranks * b.gbs * 1e3 / bpc),
            kv("copy_bandwidth_parallel_for_gbs", parallel_for_gbs),
            kv("bandwidth_fraction_parallel_for", gbs / parallel_for_gbs)};
  }
};

/// The largest square (dims 2) or cubic (dims 3) grid, edge n, whose allocation fits in `memory_bytes`
/// on one device, with the allocation modelled as `bytes_per_padded` per cell of the block padded by one
/// ghost layer per side (the LBM solver's layout): (n + 2)^dims * bytes_per_padded <= memory_bytes.
long max_grid_edge(double memory_bytes, double bytes_per_padded, int dims) {
  if (memory_bytes <= 0 || bytes_per_padded <= 0) return 0;
  const auto fits = [&](long n) { return std::pow(double(n + 2), dims) * bytes_per_padded <= memory_bytes; };
  long n = std::max(0L, static_cast<long>(std::pow(memory_bytes / bytes_per_padded, 1.0 / dims)) - 2);
  while (fits(n + 1)) ++n;  // round-off in the root
  while (n > 0 && !fits(n)) --n;
  return n;
}

double bench_lbm(const config::RunSpec& spec, const BenchOptions& opt, const parallel::Comm& comm) {
  const LbmCase c = make_lbm_case(spec, comm);
  auto solver = lbm::make_solver(c.setup);
  initialize(*solver, spec, c);
  const double cells = double(c.block.global_cells());
  long steps = default_steps(opt, cells);
  steps += steps % 2;  // whole AA pairs, so every repetition does the same work
  Yardstick yardstick;
  const backend::DeviceInfo dev = backend::device_info();

  // Warm-up: a fifth of the steps, at least 32 on several ranks so that parallel.comm auto has tried
  // its transports and settled (one halo round per step) before the clock starts; an even count.
  const long warmup = std::max(comm.size() > 1 ? 32L : 2L, steps / 5 + steps / 5 % 2);
  const std::vector<double> seconds = time_repeats(
      warmup, steps, opt.repeats, [&] { solver->step(); }, comm);
  const auto to_mlups = [&](double s) { return cells * double(steps) / s / 1e6; };
  std::vector<double> mlups;
  for (double s : seconds) mlups.push_back(to_mlups(s));
  const std::vector<double> seconds_ng = time_without_graphs(
      solver->graph_recordings(), [&](bool on) { solver->set_graphs(on); }, warmup, steps, opt.repeats,
      [&] { solver->step(); }, comm);
  const lbm::Stats st = solver->stats();
  if (st.nonfinite > 0) throw NumericalError("eddy bench: the benchmarked state went non-finite");
  const Spread m(mlups);
  const double bpc = solver->bytes_per_cell_step();
  const double gbs = m.median * 1e6 * bpc / 1e9;
  // Memory: bytes this rank's solver holds per interior cell, and from it (per padded cell, so the ghost
  // layer of a small benchmark grid does not inflate the figure) the largest cubic grid of this lattice
  // and precision that one device holds. Root's block stands for every rank's.
  const double allocated = double(solver->bytes_allocated());
  const double local_cells = double(c.block.local_cells());
  double padded_cells = 1;
  for (int d = 0; d < c.block.dims; ++d) padded_cells *= double(c.block.extent[std::size_t(d)] + 2);
  const double bytes_per_cell_alloc = local_cells > 0 ? allocated / local_cells : 0.0;
  // The CPU backend reports no device memory: there the "device" is the host's physical memory.
  const bool host_memory = !(dev.memory_gib > 0);
  const double memory_bytes = host_memory ? host_memory_bytes() : dev.memory_gib * 1024.0 * 1024.0 * 1024.0;
  const int dims = c.block.dims;
  const long max_edge = local_cells > 0 ? max_grid_edge(memory_bytes, allocated / padded_cells, dims) : 0;
  const double max_cells = std::pow(double(max_edge), dims);
  const char* shape = dims == 3 ? "cubic" : "square";
  using P = backend::PhaseTimer;  // in the step's order; pointwise: anything outside them
  const Breakdown bd =
      profile_steps(steps, [&] { solver->step(); }, spec.parallel.comm, comm,
                    {P::shell, P::pack, P::wait, P::transfer, P::inner, P::unpack, P::links, P::pointwise});
  field::MomentLayout moments;  // output.statistics.fields [velocity, pressure, reynolds_stress]
  moments.dims = c.block.dims, moments.density = moments.velocity = moments.stress = true;
  const StatisticsCost sc = time_statistics(
      moments, c.block.local_cells(), warmup, steps, opt.repeats, 1e3 * cells / (m.median * 1e6),
      [&](const field::MomentView& v) { solver->add_moments(v); }, comm);
  // Profile statistics (output.statistics.per_cell: false): every step takes a sample inside its update
  // (averaged over x and z; 2D: x) and folds it, against the plain steps timed right after, in the same way.
  std::string profile_text;
  std::vector<std::string> profile_items;
  {
    const bool averaged[3] = {true, false, dims == 3};
    field::ProfileSums ps(moments, c.block.extent, averaged);
    const std::vector<double> with = time_repeats(
        warmup, steps, opt.repeats,
        [&] {
          solver->add_profile(ps.view(), true);
          solver->step();
          ps.fold();
        },
        comm);
    const std::vector<double> plain = time_repeats(
        warmup, steps, opt.repeats, [&] { solver->step(); }, comm);
    std::vector<double> with_ms, plain_ms;
    for (double t : with) with_ms.push_back(1e3 * t / double(steps));
    for (double t : plain) plain_ms.push_back(1e3 * t / double(steps));
    const Spread w(with_ms), p(plain_ms);
    const double extra = (w.median - p.median) / p.median;
    profile_text = cat("profile statistics sample inside the step (rho, u, u_i u_j averaged over ",
                       dims == 3 ? "x, z" : "x", "; every step): ", w.median, " ms/step (min ", w.min,
                       ", max ", w.max, ") against ", p.median, " ms/step (min ", p.min, ", max ", p.max,
                       ") plain: +", 100.0 * extra, "% of a step");
    profile_items = {kv("profile_step_ms", w.median), kv("profile_plain_step_ms", p.median),
                     kv("profile_fraction", extra)};
  }
  // output.spectra on a periodic box whose ranks hold whole x rows: one energy spectrum (the velocity
  // sums of a sample, the FP64 forward transforms, the shell sums, the shells to the host) against a step.
  std::string spectrum_text;
  std::vector<std::string> spectrum_items;
  if (LbmSpectrum::fits(c)) {
    LbmSpectrum spectrum(spec, c, comm);
    const long n = std::max(2L, steps / 20);
    std::vector<double> ms;
    for (double t : time_repeats(
             2, n, opt.repeats, [&] { spectrum.compute(*solver); }, comm))
      ms.push_back(1e3 * t / double(n));
    const Spread sp(ms);
    const double step_ms = 1e3 * cells / (m.median * 1e6);
    spectrum_text =
        cat("energy spectrum (output.spectra: ", c.block.dims,
            " FP64 forward transforms of the velocity): ", sp.median, " ms (min ", sp.min, ", max ", sp.max,
            ") = ", sp.median / step_ms, " steps; every 100 steps +", sp.median / step_ms, "%");
    spectrum_items = {kv("spectrum_ms", sp.median), kv("spectrum_ms_min", sp.min),
                      kv("spectrum_ms_max", sp.max), kv("spectrum_steps", sp.median / step_ms)};
  }
  WriteBandwidth wb;
  {
    std::vector<double> rho, vel;
    solver->macroscopic(rho, vel);
    const std::vector<unsigned char> state = solver->save_state();
    for (double& v : vel) v = c.units.to_velocity(v);
    const double dx = c.units.dx;
    wb = time_writes(spec, comm, c.block, {dx, dx, dx}, vel,
                     checkpoint_meta(spec, "lbm", checkpoint_scheme(c.setup)),
                     {&c.block, solver->q(), solver->state_bytes(), state.data()});
  }
  yardstick.finish();
  const double per_device_gbs = gbs / comm.size();  // against every rank's device
  const char* storage = c.setup.storage == lbm::Storage::moments ? " moments" : "";  // populations: unsaid
  char line[400];
  std::snprintf(line, sizeof line,
                "bench %s: %s %s%s %s%s %.0f cells, %ld steps x %d: MLUPS median %.1f (min %.1f, max %.1f); "
                "%.0f B/cell/step -> %.1f GB/s = ",
                spec.name.c_str(), lbm::lattice_names(c.setup.lattice),
                lbm::collision_names(c.setup.collision), c.setup.smagorinsky > 0 ? "+smagorinsky" : "",
                spec.numerics.precision.c_str(), storage, cells, steps, opt.repeats, m.median, m.min, m.max,
                bpc, gbs);
  log::info(line + yardstick.text(per_device_gbs, bpc, comm.size()));
  log::info(cat("bench ", spec.name, ": ", bytes_per_cell_alloc, " B/cell allocated; one device (",
                memory_bytes / (1024.0 * 1024.0 * 1024.0), host_memory ? " GiB of host memory" : " GiB",
                ") holds a ", shape, " ", lbm::lattice_names(c.setup.lattice), " ", spec.numerics.precision,
                storage, " grid of at most ", max_edge, "^", dims, " = ", max_cells / 1e6, " million cells"));
  std::string graph_text;
  const std::vector<std::string> graphs =
      graph_items("mlups", seconds_ng, to_mlups, m.median, true, graph_text);
  log::info(cat("bench ", spec.name, ": ", graph_text));
  log_breakdown(spec.name, "halos", bd, comm);
  log::info(cat("bench ", spec.name, ": ", sc.text("rho, u, u_i u_j")));
  log::info(cat("bench ", spec.name, ": ", profile_text));
  if (!spectrum_text.empty()) log::info(cat("bench ", spec.name, ": ", spectrum_text));
  log::info(cat("bench ", spec.name, ": ", wb.text()));
  write_json(
      opt, spec, comm,
      items(
          {{kv_text("lattice", lbm::lattice_names(c.setup.lattice)),
            kv_text("collision", lbm::collision_names(c.setup.collision)),
            kv_text("storage", lbm::storage_names(c.setup.storage)), kv("smagorinsky", c.setup.smagorinsky),
            kv("cells", static_cast<long long>(cells)), kv_text("decomposition", c.decomposition.describe()),
            kv_text("transport", c.exchanger->name()), kv("steps", steps)},
           kv_spread("mlups", m),
           graphs,
           {kv("bytes_per_cell_step", bpc), kv("bandwidth_gbs", gbs)},
           yardstick.items(per_device_gbs, bpc, comm.size()),
           {kv("bytes_allocated", solver->bytes_allocated()),
            kv("bytes_per_cell_allocated", bytes_per_cell_alloc),
            kv("memory_for_max_gib", memory_bytes / (1024.0 * 1024.0 * 1024.0)),
            kv(dims == 3 ? "max_cubic_edge" : "max_square_edge", max_edge),
            kv(dims == 3 ? "max_cubic_cells" : "max_square_cells", static_cast<long long>(max_cells)),
            kv("breakdown", json_object(bd.items)), kv("profiled_ms_per_step", bd.step_ms),
            kv("halo_bytes_per_step", bd.sent), kv("halo_bandwidth_gbs", bd.bandwidth_gbs),
            kv("peer_bandwidth_gbs", bd.peer_gbs)},
           sc.items(),
           profile_items,
           spectrum_items,
           wb.items()}));
  return m.median;
}

/// The spectral step against its FFT floor: the classical step's transforms (3D: 9 a stage, 36 with RK4,
/// where the step runs 8 a stage: spectral/navier_stokes_k.hpp), full, timed alone in the same process on
/// the same buffers (src/README.md, Pseudo-spectral Navier-Stokes); and against the transforms the step runs,
/// pruned.
double bench_spectral(const config::RunSpec& spec, const BenchOptions& opt, const parallel::Comm& comm) {
  const SpectralCase c = make_spectral_case(spec, comm);
  const auto exchange = parallel::make_transpose_exchange(spec.parallel.comm, comm, c.p1);
  auto solver = spectral::make_solver(c.setup, *exchange);
  initialize(*solver, spec, c);
  const double dt = time_step(spec, c, solver->stats());
  const double points = double(solver->grid().total_points());
  const long steps = default_steps(opt, points), warmup = std::max(2L, steps / 5);

  const std::vector<double> step_s = time_repeats(
      warmup, steps, opt.repeats, [&] { solver->step(dt); }, comm);
  const std::vector<double> step_s_ng = time_without_graphs(
      solver->graph_recordings(), [&](bool on) { solver->set_graphs(on); }, warmup, steps, opt.repeats,
      [&] { solver->step(dt); }, comm);
  const spectral::Stats st = solver->stats();
  if (st.nonfinite > 0) throw NumericalError("eddy bench: the benchmarked state went non-finite");
  // The floor: the full transforms; and the pruned ones the step runs (the lines outside the mask's box
  // skipped: spectral/slab_fft.hpp).
  const auto time_transforms = [&](bool pruned) {
    solver->transforms_of_step(true, pruned);
    const std::vector<double> t = time_repeats(
        warmup, steps, opt.repeats, [&] { solver->transforms_of_step(false, pruned); }, comm);
    std::vector<double> per_step;
    for (double s : t) per_step.push_back(1e3 * s / double(steps));
    return Spread(per_step);
  };
  std::vector<double> ms;
  for (double s : step_s) ms.push_back(1e3 * s / double(steps));
  const Spread m(ms), f = time_transforms(false), fp = time_transforms(true);
  const double ratio = m.median / f.median;
  const int transforms = solver->floor_transforms_per_step(), runs = solver->transforms_per_step();

  using P = backend::PhaseTimer;
  const Breakdown bd = profile_steps(steps, [&] { solver->step(dt); }, spec.parallel.comm, comm,
                                     {P::pointwise, P::fft, P::pack, P::transfer, P::unpack, P::wait});
  field::MomentLayout moments;  // output.statistics.fields [velocity, reynolds_stress, vorticity]
  moments.dims = c.setup.dims, moments.velocity = moments.stress = true;
  moments.vorticity = c.setup.dims == 3 ? 3 : 1;
  const StatisticsCost sc = time_statistics(
      moments, solver->grid().points(), warmup, steps, opt.repeats, m.median,
      [&](const field::MomentView& v) { solver->add_moments(v); }, comm);
  WriteBandwidth wb;
  {
    std::vector<double> vel;
    solver->velocity(vel);
    const std::vector<unsigned char> state = solver->save_state();
    const io::Block sb = state_block(solver->grid());
    io::Block fb = io::Block::whole(c.setup.dims, c.setup.cells);
    fb.offset = c.slabs.mine().offset;
    fb.extent = c.slabs.mine().extent;
    wb = time_writes(spec, comm, fb, {c.dx[0], c.dx[1], c.setup.dims == 3 ? c.dx[2] : c.dx[0]}, vel,
                     checkpoint_meta(spec, "spectral", spectral::stepper_names(c.setup.stepper)),
                     {&sb, solver->state_values(), solver->state_bytes(), state.data()});
  }
  const spectral::Setup& s = c.setup;
  const std::string grid =
      s.dims == 3 ? cat(s.cells[0], "x", s.cells[1], "x", s.cells[2]) : cat(s.cells[0], "x", s.cells[1]);
  log::info(cat(
      "bench ", spec.name, ": spectral ", s.dims, "D ", grid, " ", spectral::stepper_names(s.stepper), " ",
      spec.numerics.precision, " ", spectral::dealiasing_names(s.dealiasing), ", ", comm.size(), " rank(s), ",
      steps, " steps x ", opt.repeats, ": ms/step median ", m.median, " (min ", m.min, ", max ", m.max,
      "); FFT floor (", transforms, " transforms per step alone) ", f.median, " ms (min ", f.min, ", max ",
      f.max, "); step / FFT floor = ", ratio, "; the step's own ", runs, " transforms, pruned ", fp.median,
      " ms (step / pruned = ", m.median / fp.median, "); ", points * 1e-3 / m.median, " million points/s"));
  std::string graph_text;
  const std::vector<std::string> graphs = graph_items(
      "ms_per_step", step_s_ng, [&](double sec) { return 1e3 * sec / double(steps); }, m.median, false,
      graph_text);
  log::info(cat("bench ", spec.name, ": ", graph_text));
  log_breakdown(spec.name, "transposes", bd, comm);
  log::info(cat("bench ", spec.name, ": ", sc.text("u, u_i u_j, vorticity")));
  log::info(cat("bench ", spec.name, ": ", wb.text()));
  write_json(opt, spec, comm,
             items({{kv("dimensions", s.dims), kv_text("grid", grid),
                     kv_text("time_stepper", spectral::stepper_names(s.stepper)),
                     kv_text("dealiasing", spectral::dealiasing_names(s.dealiasing)),
                     kv_text("transport", exchange->name()),
                     kv_text("decomposition", cat(c.p1 > 1 ? "pencil " : "slab ", c.slabs.describe())),
                     kv("points", static_cast<long long>(points)), kv("steps", steps)},
                    kv_spread("ms_per_step", m),
                    graphs,
                    {kv("transforms_per_step", transforms), kv("step_transforms_per_step", runs)},
                    kv_spread("fft_ms_per_step", f),
                    kv_spread("fft_pruned_ms_per_step", fp),
                    {kv("step_over_fft", ratio), kv("step_over_fft_pruned", m.median / fp.median),
                     kv("million_points_per_s", points * 1e-3 / m.median),
                     kv("bytes_allocated", solver->bytes_allocated()), kv("breakdown", json_object(bd.items)),
                     kv("profiled_ms_per_step", bd.step_ms), kv("transpose_bytes_per_step", bd.sent),
                     kv("transpose_bandwidth_gbs", bd.bandwidth_gbs), kv("peer_bandwidth_gbs", bd.peer_gbs),
                     kv("transpose_peer_fraction", bd.peer_gbs > 0 ? bd.bandwidth_gbs / bd.peer_gbs : 0.0)},
                    sc.items(),
                    wb.items()}));
  return m.median;
}

}  // namespace

double bench(const config::RunSpec& spec, const BenchOptions& opt, const parallel::Comm& comm) {
  return spec.solver == "spectral" ? bench_spectral(spec, opt, comm) : bench_lbm(spec, opt, comm);
}

}  // namespace eddy::app
