// `eddy plan`: per-rank memory, traffic, file sizes and a predicted time per step (app/plan.hpp).
//
// The memory and the bytes moved come from the solvers' own footprints (lbm::footprint,
// spectral::footprint: the arrays they allocate, sized from the same grids and ghost patterns); the
// time from a model whose inputs are measured on one GPU and stated below, with the ranks placed on the
// nodes in blocks (rank r on node r / G, as Slurm's default distribution). The model and its checks
// against measured runs: cases/benchmarks/scaling_model.md.
#include "app/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "app/lbm_case.hpp"
#include "app/spectral_case.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/config/config.hpp"
#include "lbm/lbm_solver.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::app {
using log::cat;

namespace {

// Defaults: one H200 (cases/benchmarks/results/2026-11-30i-h200, 2026-12-01-h200).
constexpr double k_h200_memory_gib = 139.8;     // device memory of an H200 as the runtime reports it
constexpr double k_reserve_gib = 1.5;           // kept free: CUDA context, FFT work area, library buffers
constexpr double k_h200_copy_gbs = 3924.0;      // the best copy bandwidth measured on it
constexpr double k_lbm_copy_fraction = 0.93;    // D3Q19 FP32 608^3 and 256^3: 0.93 of the copy bandwidth
constexpr double k_spectral_ms_1024 = 302.98;   // 3D RK4 FP32 1024^3, ms/step, one H200
constexpr double k_spectral_ms_2d_4096 = 12.0;  // 2D RK4 FP32 4096^2, ms/step, one H200 (about)
constexpr double k_nvlink_gbs = 376.9;          // measured between two H200s (peer copies, one way)
constexpr double k_nvlink_us = 2.0;             // assumed per message inside a node
constexpr double k_network_node_gbs = 200.0;    // 4 x 400 Gb/s NDR InfiniBand per node
constexpr double k_network_us = 5.0;            // assumed per message between nodes
constexpr double k_message_gap_us = 0.5;        // assumed per message posted (injection), either network
constexpr double k_gib = 1073741824.0;

struct Job {
  int ranks = 1, nodes = 1, per_node = 1;  // per_node: GPUs (ranks) per node
  int node_of(int r) const { return r / per_node; }
};

struct Inputs {
  double device_gib = k_h200_memory_gib, reserve_gib = k_reserve_gib;
  double link_gbs = k_nvlink_gbs, link_us = k_nvlink_us;
  double network_gbs = k_network_node_gbs, network_us = k_network_us;
  double gap_us = k_message_gap_us;
  bool cpu = false;        // the CPU backend's transports (--target cpu)
  std::string single_gpu;  // where the single-GPU speed came from
  // LBM: seconds per cell and step on one GPU; spectral: seconds per step of the bench grid and its size.
  double lbm_s_per_cell = 0, spectral_s = 0, spectral_points = 0;
};

struct Result {
  std::string solver, decomposition, limited_by;
  Int3 grid{1, 1, 1}, process_grid{1, 1, 1}, block{1, 1, 1};
  double device_bytes = 0, host_bytes = 0, capacity = 0;
  double intra_bytes = 0, inter_bytes = 0, messages = 0;
  double field_bytes = 0, checkpoint_bytes = 0;
  double compute_s = 0, intra_s = 0, inter_s = 0, latency_s = 0, step_s = 0;
  double single_gpu_s = 0, block_alone_s = 0;
  bool fits = true;
};

double number(const std::map<std::string, std::string>& m, const std::string& key, const std::string& file) {
  const auto it = m.find(key);
  if (it == m.end()) throw InputError(file + ": an `eddy bench` JSON with `" + key + "` expected (--bench)");
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    throw InputError(file + ": `" + key + "` is not a number (--bench)");
  }
}

Inputs inputs(const config::RunSpec& spec, const PlanOptions& o) {
  Inputs in;
  if (!o.bench.empty()) {
    const std::map<std::string, std::string> b = config::load_scalars(o.bench);
    const auto solver = b.find("solver");
    if (solver == b.end() || solver->second != spec.solver)
      throw InputError(o.bench + ": --bench needs an `eddy bench` JSON of the " + spec.solver + " solver");
    if (b.count("device_memory_gib")) in.device_gib = number(b, "device_memory_gib", o.bench);
    if (number(b, "ranks", o.bench) != 1)
      throw InputError(o.bench + ": --bench needs a one-rank `eddy bench` JSON (the single-GPU speed)");
    if (spec.solver == "lbm") {
      // The bench's fraction of its copy bandwidth, applied to this config's bytes per cell and step.
      in.lbm_s_per_cell =
          1.0 / (number(b, "bandwidth_fraction", o.bench) * number(b, "copy_bandwidth_gbs", o.bench) * 1e9);
      in.single_gpu = o.bench;
    } else {
      in.spectral_s = number(b, "ms_per_step_median", o.bench) * 1e-3;
      in.spectral_points = number(b, "points", o.bench);
      in.single_gpu = o.bench;
    }
  } else if (spec.solver == "lbm") {
    in.lbm_s_per_cell = 1.0 / (k_lbm_copy_fraction * k_h200_copy_gbs * 1e9);
    in.single_gpu =
        cat("H200 default: ", k_lbm_copy_fraction, " of a ", k_h200_copy_gbs, " GB/s copy bandwidth");
  } else {
    const bool three = spec.dimensions() == 3;
    in.spectral_s = (three ? k_spectral_ms_1024 : k_spectral_ms_2d_4096) * 1e-3;
    in.spectral_points = three ? 1024.0 * 1024 * 1024 : 4096.0 * 4096;
    in.single_gpu = three ? cat("H200 default: ", k_spectral_ms_1024, " ms/step at 1024^3 (RK4, FP32)")
                          : cat("H200 default: ", k_spectral_ms_2d_4096, " ms/step at 4096^2 (RK4, FP32)");
  }
  if (o.device_memory_gib > 0) in.device_gib = o.device_memory_gib;
  if (o.link_gbs > 0) in.link_gbs = o.link_gbs;
  if (o.link_us > 0) in.link_us = o.link_us;
  if (o.network_gbs > 0) in.network_gbs = o.network_gbs;
  if (o.network_us > 0) in.network_us = o.network_us;
  in.cpu = o.cpu;
  return in;
}

/// Time of `bytes` sent to a peer on the same node or another one, per GPU (the node's network
/// bandwidth shared by its GPUs), in `count` messages.
void add_message(Result& r, const Job& job, const Inputs& in, bool same_node, double bytes, double count) {
  if (bytes <= 0) return;
  r.messages += count;
  if (same_node) {
    r.intra_bytes += bytes;
    r.intra_s += bytes / (in.link_gbs * 1e9);
  } else {
    r.inter_bytes += bytes;
    r.inter_s += bytes / (in.network_gbs * 1e9 / job.per_node);
  }
}

/// Latency: the messages of a round (one halo exchange, one transpose) are posted together, so a round
/// costs one latency (the network's when any of its messages leaves the node), and every message the
/// time to inject it (`gap`).
void add_rounds(Result& r, const Inputs& in, double rounds, bool leaves_node, double messages) {
  r.latency_s += rounds * (leaves_node ? in.network_us : in.link_us) * 1e-6 + messages * in.gap_us * 1e-6;
}

void name_the_limit(Result& r, double hidden) {
  const double comm = r.intra_s + r.inter_s + r.latency_s;
  r.limited_by = "compute";
  if (comm <= hidden) return;
  const double top = std::max({r.intra_s, r.inter_s, r.latency_s});
  r.limited_by = top == r.inter_s ? "network" : top == r.intra_s ? "intra-node link" : "latency";
}

double state_bytes(Precision p) { return p == Precision::fp64 ? 8 : p == Precision::fp32 ? 4 : 2; }

bool lists(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// Whether the field files, a slice or the probes name `name`.
bool output_names(const config::RunSpec& spec, const std::string& name) {
  bool named = lists(spec.output.fields.variables, name) || lists(spec.output.probes.fields, name);
  for (const config::SliceSpec& slice : spec.output.slices) named = named || lists(slice.fields, name);
  return named;
}

Result plan_lbm(const config::RunSpec& spec, const Job& job, const Inputs& in) {
  Result r;
  r.solver = "lbm";
  r.decomposition = "blocks";
  const bool steady = spec.run.steady.tolerance > 0;
  const bool derived = output_names(spec, "vorticity") || output_names(spec, "q_criterion");
  // Rank 0 holds the largest box (uneven splits give the first ranks one cell more); the rank in the
  // middle of the process grid has the most neighbours.
  const LbmCase first = make_lbm_case(spec, job.ranks, 0);
  const parallel::Decomposition& d = first.decomposition;
  const Int3 mid{d.ranks[0] / 2, d.ranks[1] / 2, d.ranks[2] / 2};
  const int middle = static_cast<int>((mid[0] * d.ranks[1] + mid[1]) * d.ranks[2] + mid[2]);
  const lbm::Footprint f0 = lbm::footprint(first.setup, steady, derived);
  const LbmCase centre = middle == 0 ? LbmCase{} : make_lbm_case(spec, job.ranks, middle);
  const lbm::Footprint fm = middle == 0 ? f0 : lbm::footprint(centre.setup, steady, derived);
  const int dims = spec.dimensions();
  for (int a = 0; a < 3; ++a) {
    const auto k = static_cast<std::size_t>(a);
    r.grid[k] = a < dims ? d.global[k] : 1;
    r.process_grid[k] = d.ranks[k];
    r.block[k] = d.boxes[0].extent[k];
  }
  const auto peak = [](const lbm::Footprint& f) { return f.device_bytes + f.transient_bytes; };
  r.device_bytes = std::max(peak(f0), peak(fm));
  r.host_bytes = std::max(f0.host_bytes, fm.host_bytes);
  const double cells = double(r.grid[0]) * double(r.grid[1]) * double(r.grid[2]);
  const double t = state_bytes(first.setup.precision);
  // velocity, density, pressure, and the derived fields where the field files list them
  const std::vector<std::string>& listed = spec.output.fields.variables;
  r.field_bytes = cells * sizeof(double) *
                  (dims + 2 + (lists(listed, "vorticity") ? (dims == 3 ? 3 : 1) : 0) +
                   (lists(listed, "q_criterion") ? 1 : 0));
  r.checkpoint_bytes = cells * t * fm.state_values;
  const double s_cell = in.lbm_s_per_cell * fm.bytes_per_cell_step;
  r.compute_s = double(fm.cells) * s_cell;
  r.block_alone_s = r.compute_s;
  r.single_gpu_s = cells * s_cell;
  bool leaves = false;
  for (const auto& [peer, bytes] : fm.sent_bytes) {
    add_message(r, job, in, job.node_of(peer) == job.node_of(middle), bytes, 1.0);
    leaves = leaves || job.node_of(peer) != job.node_of(middle);
  }
  if (!fm.sent_bytes.empty()) add_rounds(r, in, 1.0, leaves, r.messages);
  // The shell first, then the exchange overlapped with the inner cells (src/README.md, Parallel).
  const double shell_s = double(fm.shell_cells) * s_cell, inner_s = r.compute_s - shell_s;
  const double comm = r.intra_s + r.inter_s + r.latency_s;
  r.step_s = shell_s + std::max(inner_s, comm);
  name_the_limit(r, inner_s);
  return r;
}

Result plan_spectral(const config::RunSpec& spec, const Job& job, const Inputs& in) {
  Result r;
  r.solver = "spectral";
  const SpectralCase c = make_spectral_case(spec, job.ranks, 0);
  const spectral::Setup& s = c.setup;
  const int p1 = c.p1, p2 = job.ranks / c.p1;
  r.decomposition = p1 > 1 ? "pencil" : "slab";
  // One-sided peer copies (one node) pack nothing; GPU transports pack both sides of a transpose; MPI
  // on the CPU backend the a-slab side (parallel/transport.cpp, parallel/transpose.cpp).
  const bool one_sided = (spec.parallel.comm == "peer" || spec.parallel.comm == "auto") && job.nodes == 1;
  const int sides = in.cpu ? 1 : one_sided ? 0 : 2;
  const spectral::Footprint f = spectral::footprint(s, p1, p2, sides);
  for (int a = 0; a < 3; ++a) {
    const auto k = static_cast<std::size_t>(a);
    r.grid[k] = a < s.dims ? s.cells[k] : 1;
    r.process_grid[k] = c.slabs.ranks[k];
    r.block[k] = c.slabs.boxes[0].extent[k];
  }
  r.device_bytes = f.device_bytes + f.transient_bytes;
  r.host_bytes = f.host_bytes;
  const double points = double(r.grid[0]) * double(r.grid[1]) * double(r.grid[2]);
  const double modes = double(r.grid[0] / 2 + 1) * double(r.grid[1]) * double(r.grid[2]);
  const double t = s.precision == Precision::fp32 ? 4.0 : 8.0;
  r.field_bytes = points * sizeof(double) * (s.dims + (s.dims == 3 ? 3 : 1));  // velocity, vorticity
  r.checkpoint_bytes = modes * 2 * t * (s.dims == 3 ? 3 : 1);
  // One GPU: the bench's step scaled by N log N and by the stages; FP64 moves twice the bytes.
  const double ref_precision =
      in.single_gpu.rfind("H200", 0) == 0 && s.precision == Precision::fp64 ? 2.0 : 1.0;
  const double stages = s.stepper == spectral::Stepper::rk3 ? 3.0 / 4.0 : 1.0;
  r.single_gpu_s = in.spectral_s * ref_precision * stages * (points * std::log2(points)) /
                   (in.spectral_points * std::log2(in.spectral_points));
  r.compute_s = r.single_gpu_s * double(f.points) / points;
  r.block_alone_s = r.compute_s;
  // The transposes of every transform: slab over all ranks; pencil first among the ranks of one z index
  // (rank = y index x p2 + z index, parallel/decomposition.hpp: p2 apart), then among those of one y index.
  for (std::size_t g = 0; g < f.transposes.size(); ++g) {
    const int group = f.transposes[g].first;
    const double per_peer = f.transposes[g].second / double(group - 1) * f.transforms_per_step;
    const int stride = (p1 > 1 && g == 0) ? p2 : 1;
    bool leaves = false;
    for (int m = 1; m < group; ++m) {
      add_message(r, job, in, job.node_of(m * stride) == job.node_of(0), per_peer, f.transforms_per_step);
      leaves = leaves || job.node_of(m * stride) != job.node_of(0);
    }
    add_rounds(r, in, f.transforms_per_step, leaves, double(group - 1) * f.transforms_per_step);
  }
  r.step_s = r.compute_s + r.intra_s + r.inter_s + r.latency_s;  // transposes not hidden (stated)
  name_the_limit(r, 0.0);
  return r;
}

Job job_of(const PlanOptions& o) {
  Job j;
  if (o.nodes > 0 || o.gpus_per_node > 0) {
    j.per_node = o.gpus_per_node > 0 ? o.gpus_per_node : 8;
    j.nodes = o.nodes > 0 ? o.nodes : (std::max(o.ranks, 1) + j.per_node - 1) / j.per_node;
    j.ranks = o.ranks > 0 ? o.ranks : j.nodes * j.per_node;
    if (j.ranks > j.nodes * j.per_node)
      throw InputError(cat("--ranks ", j.ranks, " on --nodes ", j.nodes, " x --gpus-per-node ", j.per_node,
                           ": eddy runs one rank per GPU, so at most ", j.nodes * j.per_node,
                           " ranks; use --nodes ", (j.ranks + j.per_node - 1) / j.per_node));
    if (j.ranks <= (j.nodes - 1) * j.per_node)
      throw InputError(cat("--ranks ", j.ranks, " on --nodes ", j.nodes, ": node ", j.nodes - 1,
                           " would get no rank (", j.per_node, " GPUs per node); use --nodes ",
                           (j.ranks + j.per_node - 1) / j.per_node));
  } else {
    j.ranks = std::max(o.ranks, 1);
    j.per_node = std::min(j.ranks, 8);
    j.nodes = (j.ranks + j.per_node - 1) / j.per_node;
  }
  return j;
}

Result compute(const config::RunSpec& spec, const Job& job, const Inputs& in) {
  Result r = spec.solver == "spectral" ? plan_spectral(spec, job, in) : plan_lbm(spec, job, in);
  r.capacity = (in.device_gib - in.reserve_gib) * k_gib;
  r.fits = r.device_bytes <= r.capacity;
  return r;
}

std::string gib_text(double bytes) { return cat(std::round(bytes / k_gib * 100) / 100, " GiB"); }
std::string grid_text(const Int3& g, int dims) {
  return dims == 3 ? cat(g[0], " x ", g[1], " x ", g[2]) : cat(g[0], " x ", g[1]);
}

/// The fewest ranks (a multiple of the GPUs per node when nodes were given) whose largest block fits.
int ranks_that_fit(const config::RunSpec& spec, const Job& job, const Inputs& in, const Result& r) {
  const int step = job.nodes > 1 || job.per_node > 1 ? job.per_node : 1;
  int p = std::max(job.ranks + 1, int(std::ceil(job.ranks * r.device_bytes / r.capacity)));
  p = (p + step - 1) / step * step;
  for (int tries = 0; tries < 256; ++tries, p += step) {
    Job j = job;
    j.ranks = p, j.nodes = (p + j.per_node - 1) / j.per_node;
    try {
      if (compute(spec, j, in).fits) return p;
    } catch (const InputError&) {  // a rank count the grid cannot take: try the next
    }
  }
  return 0;
}

void refuse(const config::RunSpec& spec, const Job& job, const Inputs& in, const Result& r,
            const std::string& how) {
  const int fit = ranks_that_fit(spec, job, in, r);
  const int dims = spec.dimensions();
  const std::string use = fit > 0 ? cat("use at least ", fit, " ranks",
                                        job.per_node > 1 ? cat(" (", (fit + job.per_node - 1) / job.per_node,
                                                               " nodes of ", job.per_node, ")")
                                                         : std::string())
                                  : std::string("no rank count up to 256 steps further fits");
  throw InputError(cat(how, ": ", grid_text(r.grid, dims), " cells over ", job.ranks,
                       " rank(s): the largest block, ", grid_text(r.block, dims), ", needs ",
                       gib_text(r.device_bytes), " of device memory, more than the ", gib_text(r.capacity),
                       " of a ", gib_text(in.device_gib * k_gib), " device (",
                       gib_text(in.reserve_gib * k_gib), " kept free); ", use, ", or fewer cells"));
}

void write_json(const std::string& path, const config::RunSpec& spec, const Job& job, const Inputs& in,
                const Result& r) {
  std::ofstream o(path + ".tmp");
  auto arr = [](const Int3& v) { return cat("[", v[0], ", ", v[1], ", ", v[2], "]"); };
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return std::string(b);
  };
  const double speedup = r.single_gpu_s / r.step_s;
  o << "{\n"
    << "  \"config\": \"" << spec.source_file << "\",\n"
    << "  \"solver\": \"" << r.solver << "\",\n"
    << "  \"grid\": " << arr(r.grid) << ",\n"
    << "  \"ranks\": " << job.ranks << ",\n  \"nodes\": " << job.nodes
    << ",\n  \"gpus_per_node\": " << job.per_node << ",\n"
    << "  \"decomposition\": \"" << r.decomposition << "\",\n"
    << "  \"process_grid\": " << arr(r.process_grid) << ",\n"
    << "  \"block\": " << arr(r.block) << ",\n"
    << "  \"device_bytes_per_rank\": " << num(r.device_bytes) << ",\n"
    << "  \"host_bytes_per_rank\": " << num(r.host_bytes) << ",\n"
    << "  \"device_capacity_bytes\": " << num(r.capacity) << ",\n"
    << "  \"fits\": " << (r.fits ? "true" : "false") << ",\n"
    << "  \"exchange_bytes_per_step_per_rank\": " << num(r.intra_bytes + r.inter_bytes) << ",\n"
    << "  \"intra_node_bytes_per_step_per_rank\": " << num(r.intra_bytes) << ",\n"
    << "  \"inter_node_bytes_per_step_per_rank\": " << num(r.inter_bytes) << ",\n"
    << "  \"messages_per_step_per_rank\": " << num(r.messages) << ",\n"
    << "  \"field_file_bytes\": " << num(r.field_bytes) << ",\n"
    << "  \"checkpoint_bytes\": " << num(r.checkpoint_bytes) << ",\n"
    << "  \"model\": {\"compute_s\": " << num(r.compute_s) << ", \"intra_node_s\": " << num(r.intra_s)
    << ", \"inter_node_s\": " << num(r.inter_s) << ", \"latency_s\": " << num(r.latency_s)
    << ", \"step_s\": " << num(r.step_s) << ", \"limited_by\": \"" << r.limited_by << "\",\n"
    << "    \"inputs\": {\"single_gpu\": \"" << in.single_gpu
    << "\", \"device_memory_gib\": " << num(in.device_gib) << ", \"link_gbs\": " << num(in.link_gbs)
    << ", \"link_latency_us\": " << num(in.link_us) << ", \"network_gbs_per_node\": " << num(in.network_gbs)
    << ", \"network_latency_us\": " << num(in.network_us) << ", \"message_gap_us\": " << num(in.gap_us)
    << "}},\n"
    << "  \"single_gpu_step_s\": " << num(r.single_gpu_s) << ",\n"
    << "  \"speedup\": " << num(speedup) << ",\n"
    << "  \"efficiency\": " << num(speedup / job.ranks) << ",\n"
    << "  \"weak_efficiency\": " << num(r.block_alone_s / r.step_s) << "\n"
    << "}\n";
  o.close();
  if (!o || std::rename((path + ".tmp").c_str(), path.c_str()) != 0)
    throw InputError(path + ": cannot write the plan (--json)");
}

}  // namespace

void plan(const config::RunSpec& spec, const PlanOptions& options, bool print) {
  const Job job = job_of(options);
  const Inputs in = inputs(spec, options);
  const Result r = compute(spec, job, in);
  const int dims = spec.dimensions();
  if (!r.fits) refuse(spec, job, in, r, "eddy plan");
  if (!options.json.empty() && print) write_json(options.json, spec, job, in, r);
  if (!print) return;
  const double speedup = r.single_gpu_s / r.step_s;
  log::info(cat("plan: ", spec.source_file, ": ", r.solver, ", ", grid_text(r.grid, dims), " cells, ",
                job.ranks, " rank(s) on ", job.nodes, " node(s) of ", job.per_node, " GPU(s)"));
  log::info(cat("  decomposition:  ", r.decomposition, " ", grid_text(r.process_grid, dims),
                ", largest block ", grid_text(r.block, dims)));
  log::info(cat("  device memory:  ", gib_text(r.device_bytes),
                " per rank (peak, with the largest temporary) of ", gib_text(r.capacity), " usable"));
  log::info(
      cat("  host memory:    ", gib_text(r.host_bytes),
          " per rank (the largest host array: checkpoint state or field output) beyond the process itself"));
  log::info(cat("  exchange:       ", gib_text(r.intra_bytes), " inside the node and ",
                gib_text(r.inter_bytes), " between nodes per step and rank, ", r.messages, " messages"));
  log::info(cat("  files:          field file ", gib_text(r.field_bytes), ", checkpoint ",
                gib_text(r.checkpoint_bytes)));
  log::info(cat("  time per step:  ", r.step_s * 1e3, " ms (compute ", r.compute_s * 1e3, ", intra-node ",
                r.intra_s * 1e3, ", network ", r.inter_s * 1e3, ", latency ", r.latency_s * 1e3,
                " ms); limited by ", r.limited_by));
  log::info(cat("  against one GPU: ", speedup, "x (", r.single_gpu_s * 1e3, " ms/step for the whole grid), ",
                std::round(1000 * speedup / job.ranks) / 10, " % parallel efficiency; ",
                std::round(1000 * r.block_alone_s / r.step_s) / 10, " % of the block's speed alone"));
  log::info(cat("  inputs:         ", in.single_gpu, "; link ", in.link_gbs, " GB/s, ", in.link_us,
                " us; network ", in.network_gbs, " GB/s per node, ", in.network_us, " us; ", in.gap_us,
                " us per message posted"));
}

void check_fits_device(const config::RunSpec& spec, int ranks, double device_gib, double reserve_gib,
                       bool cpu) {
  PlanOptions o;
  o.ranks = ranks;
  o.cpu = cpu;
  o.device_memory_gib = device_gib;
  const Job job = job_of(o);
  Inputs in = inputs(spec, o);
  in.reserve_gib = reserve_gib;
  const Result r = compute(spec, job, in);
  if (!r.fits) refuse(spec, job, in, r, "domain.cells");
}

}  // namespace eddy::app
