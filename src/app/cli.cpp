#include "app/cli.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/optimize.hpp"
#include "app/plan.hpp"
#include "app/run.hpp"
#include "app/stop.hpp"
#include "app/validation.hpp"
#include "backend/backend.hpp"
#include "backend/device_comm.hpp"
#include "backend/peer_copy.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "eddy_git_commit.hpp"  // generated: EDDY_GIT_COMMIT
#include "io/config/config.hpp"
#include "io/hdf5/field_file.hpp"
#include "parallel/comm.hpp"
#include "parallel/transport.hpp"
#include "sim/signals.hpp"

namespace eddy::app {
namespace {

const char* usage =
    "usage:\n"
    "  eddy run CONFIG.yaml [--set key.path=value]... [--out DIR] [--restart auto|PATH] [--quiet]\n"
    "           [--overwrite] [--allow-physics-change]\n"
    "      --overwrite: start afresh in a directory that holds another run's checkpoints (deletes them)\n"
    "      --allow-physics-change: --restart under other physics (Reynolds number, boundaries, collision,\n"
    "                              forcing) than the checkpoint's\n"
    "  eddy validate CONFIG.yaml [--set key.path=value]...\n"
    "  eddy optimize CONFIG.yaml [--set key.path=value]... [--out DIR] [--quiet]   (2D spectral: optimal "
    "perturbation)\n"
    "  eddy bench CONFIG.yaml|SUITE_DIR [--set ...] [--steps N] [--repeat R] [--json FILE|DIR]\n"
    "  eddy plan CONFIG.yaml [--set ...] [--ranks N | --nodes N --gpus-per-node G] [--target gpu|cpu]\n"
    "            [--bench FILE.json] [--device-memory GIB] [--link-bandwidth GBPS] [--link-latency US]\n"
    "            [--network-bandwidth GBPS] [--network-latency US] [--json FILE]\n"
    "  eddy info\n"
    "exit codes: 0 success, 1 failure, 2 bad input (config, command line, files), 3 numerical failure,\n"
    "            75 stopped early by a signal or run.max_wall_time after writing a checkpoint (--restart "
    "auto)\n";

struct Args {
  std::string verb, config, out, json, restart;
  std::vector<std::string> sets;
  bool quiet = false, overwrite = false, allow_physics_change = false;
  long steps = 0;
  int repeats = 5;
  PlanOptions plan;
};

double to_positive(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size() && x > 0 && std::isfinite(x)) return x;
  } catch (const std::exception&) {
  }
  throw InputError(flag + " " + v + ": expected a positive number");
}

/// A whole number in [1, max]; anything else (a sign, a fraction, past `max`) is refused, never wrapped.
long to_long(const std::string& flag, const std::string& v, long max = std::numeric_limits<long>::max()) {
  try {
    std::size_t used = 0;
    const long n = std::stol(v, &used);
    if (used == v.size() && n > 0 && n <= max && v[0] != '+' && v[0] != ' ') return n;
  } catch (const std::exception&) {
  }
  throw InputError(
      flag + " " + v + ": expected a positive whole number" +
      (max < std::numeric_limits<long>::max() ? " up to " + std::to_string(max) : std::string()));
}

constexpr long int_max = std::numeric_limits<int>::max();

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) throw InputError(std::string("no command given\n") + usage);
  a.verb = argv[1];
  if (a.verb == "--help" || a.verb == "-h" || a.verb == "help") return a;
  if (a.verb == "--version") return a;
  if (a.verb != "run" && a.verb != "validate" && a.verb != "bench" && a.verb != "info" &&
      a.verb != "optimize" && a.verb != "plan")
    throw InputError("unknown command '" + a.verb +
                     "' (valid: run, validate, bench, optimize, plan, info)\n" + usage);
  const bool writes = a.verb == "run" || a.verb == "optimize";
  for (int k = 2; k < argc; ++k) {
    const std::string s = argv[k];
    auto value = [&](const std::string& flag) -> std::string {
      if (k + 1 >= argc) throw InputError(flag + " needs a value\n" + usage);
      return argv[++k];
    };
    if (s == "--set") {
      a.sets.push_back(value(s));
    } else if (s.rfind("--set=", 0) == 0) {
      a.sets.push_back(s.substr(6));
    } else if (s == "--out" && writes) {
      a.out = value(s);
    } else if (s == "--quiet" && writes) {
      a.quiet = true;
    } else if (s == "--restart" && a.verb == "run") {
      a.restart = value(s);
      // An empty value would read as no --restart at all and start afresh over the checkpoints.
      if (a.restart.empty())
        throw InputError(
            "--restart needs a value: auto (the newest valid checkpoint) or a checkpoint file\n" +
            std::string(usage));
    } else if (s == "--overwrite" && a.verb == "run") {
      a.overwrite = true;
    } else if (s == "--allow-physics-change" && a.verb == "run") {
      a.allow_physics_change = true;
    } else if (s == "--json" && (a.verb == "bench" || a.verb == "plan")) {
      a.json = a.plan.json = value(s);
    } else if (a.verb == "plan" && (s == "--ranks" || s == "--nodes" || s == "--gpus-per-node")) {
      const int n = static_cast<int>(to_long(s, value(s), int_max));
      (s == "--ranks" ? a.plan.ranks : s == "--nodes" ? a.plan.nodes : a.plan.gpus_per_node) = n;
    } else if (a.verb == "plan" && s == "--bench") {
      a.plan.bench = value(s);
    } else if (a.verb == "plan" && s == "--target") {
      const std::string t = value(s);
      if (t != "gpu" && t != "cpu") throw InputError("--target " + t + ": expected gpu or cpu");
      a.plan.cpu = t == "cpu";
    } else if (a.verb == "plan" &&
               (s == "--device-memory" || s == "--link-bandwidth" || s == "--link-latency" ||
                s == "--network-bandwidth" || s == "--network-latency")) {
      const double x = to_positive(s, value(s));
      (s == "--device-memory"       ? a.plan.device_memory_gib
       : s == "--link-bandwidth"    ? a.plan.link_gbs
       : s == "--link-latency"      ? a.plan.link_us
       : s == "--network-bandwidth" ? a.plan.network_gbs
                                    : a.plan.network_us) = x;
    } else if (s == "--steps" && a.verb == "bench") {
      a.steps = to_long(s, value(s));
    } else if (s == "--repeat" && a.verb == "bench") {
      a.repeats = static_cast<int>(to_long(s, value(s), 1000000));
    } else if (!s.empty() && s[0] == '-') {
      throw InputError("unknown option '" + s + "' for 'eddy " + a.verb + "'\n" + usage);
    } else if (a.config.empty() && a.verb != "info") {
      a.config = s;
    } else {
      throw InputError("unexpected argument '" + s + "'\n" + usage);
    }
  }
  if (a.verb != "info" && a.config.empty())
    throw InputError("eddy " + a.verb + ": no CONFIG.yaml given\n" + usage);
  return a;
}

void info(const parallel::Comm& comm) {
  const backend::DeviceInfo d = backend::device_info();
  log::info("eddy " EDDY_VERSION " (commit " EDDY_GIT_COMMIT ")");
  log::info("backend:   " + d.backend + " (" + d.runtime + ")");
  log::info(std::string("HDF5:      ") +
            (io::hdf5_is_parallel()
                 ? "parallel; output.writer auto picks collective (MPI-IO)"
                 : "serial; output.writer auto picks per_rank on several ranks (one file per rank, mapped by "
                   "virtual datasets), one plain file on one rank"));
  log::info("MPI:       " + parallel::Comm::mpi_version() + ", " + std::to_string(comm.size()) +
            " rank(s); device memory: " + parallel::mpi_device_support());
  log::info("devcomm:   " + backend::device_comm_version());
  log::info("peer:      " +
            (backend::peer_copy_available()
                 ? std::string("copies between the GPUs of one host (CUDA IPC; parallel.comm: peer)")
                 : "none: " + backend::peer_copy_unavailable_reason()));
  // rank -> host -> device in rank order, and the hosts (one line per rank: O(ranks) text on every rank).
  const std::string mine =
      "  rank " + std::to_string(comm.rank()) + " on " + parallel::Comm::hostname() + ": " +
      (d.device_count > 0
           ? d.name + " #" + std::to_string(d.device_id) + " of " + std::to_string(d.device_count)
           : d.name + ", " + std::to_string(d.threads) + " OpenMP threads");
  const std::vector<std::string> hosts = comm.allgather(parallel::Comm::hostname());
  std::vector<std::string> distinct;
  for (const std::string& h : hosts)
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  std::string list;
  for (const std::string& h : distinct)
    list += (list.empty() ? "" : ", ") + h + " (" +
            std::to_string(std::count(hosts.begin(), hosts.end(), h)) + " rank(s))";
  log::info("hosts:     " + std::to_string(distinct.size()) + ": " + list);
  for (const std::string& line : comm.allgather(mine)) log::info(line);
}

/// eddy runs one rank per GPU: a node with more ranks than visible GPUs is refused on every rank
/// (exit 2) before anything is written, naming the host and the counts. Collective.
void one_rank_per_gpu(const parallel::Comm& comm) {
  const int local = comm.node_local_size(), gpus = backend::device_info().device_count;
  const bool over = local > gpus;
  const std::vector<std::string> hosts = comm.allgather(
      over ? log::cat(parallel::Comm::hostname(), " runs ", local, " ranks but sees ", gpus, " GPU(s)")
           : std::string());
  for (const std::string& h : hosts)
    if (!h.empty())
      throw InputError("host " + h +
                       ": eddy runs one rank per GPU; start at most as many ranks per node as it has GPUs "
                       "(mpirun --map-by ppr:G:node, srun --ntasks-per-node=G --gpus-per-task=1) or make "
                       "more GPUs visible (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES)");
}

/// `eddy bench SUITE_DIR`: every *.yaml of the directory in name order, the --set overrides applied to each,
/// one JSON per config into the --json directory (<config name>.json). A config that is bad input or fails
/// numerically is reported and the suite goes on; the exit code is the first such failure's.
int bench_suite(const Args& a, const parallel::Comm& comm) {
  namespace fs = std::filesystem;
  std::vector<fs::path> configs;
  for (const fs::directory_entry& e : fs::directory_iterator(a.config))
    if (e.is_regular_file() && e.path().extension() == ".yaml") configs.push_back(e.path());
  std::sort(configs.begin(), configs.end());
  if (configs.empty())
    throw InputError(a.config + ": a bench suite directory needs *.yaml configs; it has none");
  if (!a.json.empty() && comm.root()) {
    std::error_code ec;
    fs::create_directories(a.json, ec);
    if (ec || !fs::is_directory(a.json))
      throw InputError(a.json + ": cannot make the directory for the suite's JSON files (--json)");
  }
  int code = exit_ok, failed = 0;
  for (const fs::path& p : configs) {
    const std::string json =
        a.json.empty() ? "" : (fs::path(a.json) / (p.stem().string() + ".json")).string();
    try {
      bench(load_config(p.string(), a.sets), BenchOptions{a.steps, a.repeats, json, p.string(), a.sets},
            comm);
    } catch (const Error& e) {
      if (!dynamic_cast<const InputError*>(&e) && !dynamic_cast<const NumericalError*>(&e)) throw;
      if (comm.root()) log::error(p.filename().string() + ": " + e.what());
      if (code == exit_ok) code = e.exit_code();
      ++failed;
    }
  }
  log::info(log::cat("bench suite ", a.config, ": ", configs.size() - static_cast<std::size_t>(failed),
                     " of ", configs.size(), " configs ran",
                     a.json.empty() ? std::string() : "; JSON in " + a.json));
  return code;
}

}  // namespace

int main_entry(int argc, char** argv) {
  // `eddy run` takes its stop signals from the first instruction on: one that arrives while the set-up
  // voxelizes a mesh, reads a checkpoint or allocates stops the run before its first step (exit 75)
  // instead of killing it. The other verbs keep the default actions.
  if (argc > 1 && std::string(argv[1]) == "run") sim::install_stop_signals();
  parallel::MpiSession mpi(&argc, &argv);
  const parallel::Comm comm;
  log::set_rank(comm.rank());
  int code = exit_ok;
  try {
    const Args a = parse(argc, argv);
    if (a.verb == "--help" || a.verb == "-h" || a.verb == "help") {
      if (comm.root()) std::cout << usage;
      return exit_ok;
    }
    if (a.verb == "--version") {
      if (comm.root())
        std::cout << "eddy " EDDY_VERSION " (" << backend::name() << ", commit " EDDY_GIT_COMMIT ")\n";
      return exit_ok;
    }
    if (a.verb == "plan") {  // no device and no MPI job needed: a login node
      const config::RunSpec spec = load_config(a.config, a.sets);
      check_run(spec);
      plan(spec, a.plan, comm.root());
      return exit_ok;
    }
    if (a.verb == "validate") {  // no device needed: works on a login node
      const config::RunSpec spec = load_config(a.config, a.sets);
      check_case(spec);
      log::info(a.config + ": valid");
      return exit_ok;
    }
    backend::initialize(comm.node_local_rank());
    if (a.verb == "info") {
      info(comm);
      return exit_ok;
    }
    if (backend::is_gpu()) one_rank_per_gpu(comm);
    if (a.verb == "bench" && std::filesystem::is_directory(a.config)) return bench_suite(a, comm);
    const config::RunSpec spec = load_config(a.config, a.sets);
    if (a.verb == "run") {
      if (run(spec, RunOptions{a.out, a.quiet, a.restart, a.overwrite, a.allow_physics_change}, comm)
              .interrupted)
        code = exit_interrupted;
    } else if (a.verb == "bench") {
      bench(spec, BenchOptions{a.steps, a.repeats, a.json, a.config, a.sets}, comm);
    } else if (a.verb == "optimize") {
      optimize(spec, RunOptions{a.out, a.quiet, ""}, comm);
    }
  } catch (const Error& e) {
    const bool collective = dynamic_cast<const InputError*>(&e) || dynamic_cast<const NumericalError*>(&e);
    if (comm.root() || !collective) log::error(e.what());
    code = e.exit_code();
    // Input and numerical errors are found by every rank together; anything else may be this rank's
    // alone, with the others waiting in a collective: take the whole job down rather than hang.
    if (!collective && comm.size() > 1) comm.abort(code);
  } catch (const std::exception& e) {
    log::error(e.what());
    code = exit_failure;
    if (comm.size() > 1) comm.abort(code);
  }
  // A failure on some ranks only must not leave the others waiting in a collective.
  if (comm.size() > 1 && comm.any(code != exit_ok) && code == exit_ok) code = exit_failure;
  return code;
}

}  // namespace eddy::app
