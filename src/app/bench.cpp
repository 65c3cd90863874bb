#include "app/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <vector>

#include "app/lbm_case.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace eddy::app {
using log::cat;

double bench(const config::RunSpec& spec, const BenchOptions& opt, const parallel::Comm& comm) {
  if (spec.solver != "lbm") throw InputError("solver: eddy bench supports lbm in this version");
  const LbmCase c = make_lbm_case(spec, comm);
  auto solver = lbm::make_solver(c.setup);
  solver->initialize(initial_condition(spec, c));
  const double cells = double(c.block.global_cells());
  long steps = opt.steps > 0 ? opt.steps : std::max(10L, static_cast<long>(1e9 / cells));
  steps += steps % 2;  // whole AA pairs, so every repetition does the same work

  const backend::DeviceInfo dev = backend::device_info();
  const double copy_gbs = backend::copy_bandwidth(std::size_t(1) << 30, 5);

  for (long k = 0; k < std::max(2L, steps / 5 + steps / 5 % 2); ++k) solver->step();  // warm-up
  std::vector<double> mlups;
  for (int r = 0; r < opt.repeats; ++r) {
    backend::fence();
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) solver->step();
    backend::fence();
    comm.barrier();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    mlups.push_back(cells * double(steps) / s / 1e6);
  }
  const lbm::Stats st = solver->stats();
  if (st.nonfinite > 0) throw NumericalError("eddy bench: the benchmarked state went non-finite");
  std::vector<double> sorted = mlups;
  std::sort(sorted.begin(), sorted.end());
  const double med = sorted[sorted.size() / 2];
  const double bpc = solver->bytes_per_cell_step();
  const double gbs = med * 1e6 * bpc / 1e9;
  const double fraction = gbs / (copy_gbs * comm.size());  // against every rank's device
  char line[400];
  std::snprintf(
      line, sizeof line,
      "bench %s: %s %s%s %s %.0f cells, %ld steps x %d: MLUPS median %.1f (min %.1f, max %.1f); "
      "%.0f B/cell/step -> %.1f GB/s = %.1f%% of the measured copy bandwidth (%.1f GB/s per device x %d)",
      spec.name.c_str(), c.setup.lattice.c_str(), c.setup.collision.c_str(),
      c.setup.smagorinsky > 0 ? "+smagorinsky" : "", spec.numerics.precision.c_str(), cells, steps,
      opt.repeats, med, sorted.front(), sorted.back(), bpc, gbs, 100.0 * fraction, copy_gbs, comm.size());
  log::info(line);

  if (!opt.json.empty() && comm.root()) {
    std::ofstream j(opt.json);
    if (!j) throw InputError(opt.json + ": cannot write the bench JSON (--json)");
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    j << "{\n  \"name\": \"" << spec.name << "\",\n  \"date\": \"" << date << "\",\n  \"eddy_version\": \""
      << EDDY_VERSION << "\",\n  \"backend\": \"" << dev.backend << "\",\n  \"device\": \"" << dev.name
      << "\",\n  \"ranks\": " << comm.size() << ",\n  \"lattice\": \"" << c.setup.lattice
      << "\",\n  \"collision\": \"" << c.setup.collision << "\",\n  \"smagorinsky\": " << c.setup.smagorinsky
      << ",\n  \"precision\": \"" << spec.numerics.precision
      << "\",\n  \"cells\": " << static_cast<long long>(cells) << ",\n  \"comm\": \"" << spec.parallel.comm
      << "\",\n  \"transport\": \"" << c.exchanger->name() << "\",\n  \"decomposition\": \""
      << c.decomposition.describe() << "\""
      << ",\n  \"steps\": " << steps << ",\n  \"mlups\": [";
    for (std::size_t k = 0; k < mlups.size(); ++k) j << (k ? ", " : "") << mlups[k];
    j << "],\n  \"mlups_median\": " << med << ",\n  \"mlups_min\": " << sorted.front()
      << ",\n  \"mlups_max\": " << sorted.back() << ",\n  \"bytes_per_cell_step\": " << bpc
      << ",\n  \"bandwidth_gbs\": " << gbs << ",\n  \"copy_bandwidth_gbs\": " << copy_gbs
      << ",\n  \"bandwidth_fraction\": " << fraction
      << ",\n  \"bytes_allocated\": " << solver->bytes_allocated() << "\n}\n";
  }
  return med;
}

}  // namespace eddy::app
