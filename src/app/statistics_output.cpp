#include "app/statistics_output.hpp"

#include <algorithm>
#include <string>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "sim/simulation.hpp"

namespace eddy::app {
using log::cat;

namespace {

bool listed(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// Which sums a layout holds, as the checkpoint records it: a restart whose statistics sum other fields
/// starts them anew.
double layout_code(const field::MomentLayout& l) {
  return double((l.density ? 1 : 0) + (l.velocity ? 2 : 0) + (l.stress ? 4 : 0) + 8 * l.vorticity +
                64 * l.dims);
}

/// One dataset of a stats file from the sums: components `comps` from slot `slot`, each the value
/// (sum / samples + offset) x factor.
struct MeanField {
  std::string name;
  int slot = 0, comps = 1;
  double factor = 1.0, offset = 0.0;
  std::string units;
};

}  // namespace

struct StatisticsOutput::Sums {
  Model& model;
  RunOutput& out;
  const config::RunSpec& spec;
  field::MomentLayout layout;
  std::vector<MeanField> means;
  backend::DeviceArray<double> sums;
  std::vector<double> host;  ///< the sums for a checkpoint
  long samples = 0;
  double t_start = 0.0, t_end = 0.0;

  Sums(Model& m, RunOutput& o, const config::RunSpec& s, const RunStart& start) : model(m), out(o), spec(s) {
    const std::vector<std::string>& f = spec.output.statistics.fields;
    const io::Block& b = model.grid().block;
    layout.dims = b.dims;
    layout.density = listed(f, "density") || listed(f, "pressure");
    layout.stress = listed(f, "reynolds_stress");
    layout.velocity = listed(f, "velocity") || layout.stress;  // the fluctuations need the mean
    layout.vorticity = listed(f, "vorticity") ? model.vorticity_components() : 0;
    if (listed(f, "vorticity") && layout.vorticity == 0)
      throw InputError("output.statistics.fields: solver " + spec.solver + " sums no vorticity");
    const MomentUnits u = model.moment_units();
    if (listed(f, "density")) means.push_back({"mean_density", 0, 1, u.density, 1.0, "kg/m^3"});
    if (listed(f, "pressure"))
      means.push_back({"mean_pressure", 0, 1, u.pressure, 0.0, "Pa (deviation from the reference pressure)"});
    if (layout.velocity)
      means.push_back({"mean_velocity", layout.velocity_slot(), b.dims, u.velocity, 0.0, "m/s"});
    if (layout.stress)
      means.push_back({"reynolds_stress", layout.stress_slot(), layout.stress_components(),
                       u.velocity * u.velocity, 0.0, "m^2/s^2"});
    if (layout.vorticity > 0)
      means.push_back({"mean_vorticity", layout.vorticity_slot(), layout.vorticity, 1.0, 0.0, "1/s"});
    sums.resize(static_cast<std::size_t>(b.local_cells() * layout.count()));
    if (start.restarted) resume(start);
  }

  /// The sums, sample count and window of the checkpoint restarted from, where it holds these sums.
  void resume(const RunStart& start) {
    const io::CheckpointArrayRead r = io::read_checkpoint_array(
        start.checkpoint, "statistics", model.grid().block, layout.count(), out.comm());
    if (r.found && r.info.size() == 4 && r.info[3] == layout_code(layout)) {
      // The checkpoint interleaves a cell's sums; the device holds them slot by slot.
      const std::size_t cells = static_cast<std::size_t>(model.grid().block.local_cells()),
                        n = layout.count();
      std::vector<double> slots(r.values.size());
      for (std::size_t c = 0; c < cells; ++c)
        for (std::size_t k = 0; k < n; ++k) slots[k * cells + c] = r.values[c * n + k];
      sums.from_host(slots);
      samples = static_cast<long>(r.info[0]), t_start = r.info[1], t_end = r.info[2];
      log::info(cat("statistics continued from ", start.checkpoint, ": ", samples,
                    " samples since t = ", t_start, " s"));
      return;
    }
    log::warn(cat("statistics: ", r.found ? "the checkpoint's statistics sum other fields" : r.why,
                  "; they start anew at step ", start.step));
  }

  bool started(const sim::Clock& clk) const {
    const Schedule& s = spec.output.statistics.start;
    if (s.steps > 0) return clk.step >= s.steps;
    return clk.time >= s.time * (1 - 1e-9);
  }

  void sample(const sim::Clock& clk) {
    if (!started(clk)) return;
    model.add_moments({sums.data(), model.grid().block.local_cells(), layout});
    if (samples == 0) t_start = clk.time;
    t_end = clk.time;
    ++samples;
  }

  void write(const sim::Clock& clk) {
    if (clk.step == 0) return;  // the initial actions of a fresh start: one sample of the initial state
    if (samples == 0) {
      log::info(cat("statistics: no sample taken by step ", clk.step,
                    " (output.statistics.start); no file written"));
      return;
    }
    const std::vector<double> s = sums.to_host();
    const FieldGrid& grid = model.grid();
    const index_t cells = grid.block.local_cells();
    std::vector<std::vector<double>> data(means.size());
    std::vector<FieldData> fields;
    for (std::size_t i = 0; i < means.size(); ++i) {
      const MeanField& m = means[i];
      const auto comps = static_cast<std::size_t>(m.comps);
      data[i].resize(static_cast<std::size_t>(cells) * comps);
      for (std::size_t c = 0; c < static_cast<std::size_t>(cells); ++c)
        for (std::size_t k = 0; k < comps; ++k)
          data[i][c * comps + k] =
              (s[(static_cast<std::size_t>(m.slot) + k) * static_cast<std::size_t>(cells) + c] /
                   double(samples) +
               m.offset) *
              m.factor;
      fields.push_back({m.name, data[i].data(), m.comps > 1 ? m.comps : 0, m.units});
    }
    out.write_statistics(clk.step, clk.time, grid, fields, profiles(data),
                         {{"samples", double(samples)}, {"t_start", t_start}, {"t_end", t_end}});
  }

  /// The means averaged over output.statistics.average_over, and the cell centres of the directions left:
  /// exact sums over the cells and ranks, divided by the cells of a line.
  std::vector<GlobalData> profiles(const std::vector<std::vector<double>>& data) const {
    const std::vector<std::string>& over = spec.output.statistics.average_over;
    if (over.empty()) return {};
    const FieldGrid& grid = model.grid();
    const io::Block& b = grid.block;
    bool averaged[3] = {false, false, false};
    for (const std::string& a : over) averaged[a[0] - 'x'] = true;
    // A profile point: the global indices along the directions left, the first fastest.
    index_t points = 1, stride[3] = {0, 0, 0};
    double line = 1.0;
    for (std::size_t a = 0; a < static_cast<std::size_t>(b.dims); ++a) {
      if (averaged[a]) {
        line *= double(b.global[a]);
      } else {
        stride[a] = points;
        points *= b.global[a];
      }
    }
    std::vector<index_t> point_of(static_cast<std::size_t>(b.local_cells()));
    for (index_t z = 0, c = 0; z < b.extent[2]; ++z)
      for (index_t y = 0; y < b.extent[1]; ++y)
        for (index_t x = 0; x < b.extent[0]; ++x, ++c)
          point_of[static_cast<std::size_t>(c)] =
              (x + b.offset[0]) * stride[0] + (y + b.offset[1]) * stride[1] + (z + b.offset[2]) * stride[2];
    std::vector<GlobalData> result;
    std::vector<index_t> shape;
    for (int a = b.dims - 1; a >= 0; --a)
      if (!averaged[a]) shape.push_back(b.global[static_cast<std::size_t>(a)]);
    for (std::size_t i = 0; i < means.size(); ++i) {
      const auto comps = static_cast<std::size_t>(means[i].comps);
      std::vector<std::vector<double>> terms(static_cast<std::size_t>(points) * comps);
      for (std::size_t c = 0; c < point_of.size(); ++c)
        for (std::size_t k = 0; k < comps; ++k)
          terms[static_cast<std::size_t>(point_of[c]) * comps + k].push_back(data[i][c * comps + k]);
      std::vector<double> v = out.comm().sum_exact(terms, line);
      for (double& x : v) x /= line;
      std::vector<index_t> sh = shape;
      if (comps > 1) sh.push_back(static_cast<index_t>(comps));
      result.push_back({"profile_" + means[i].name, std::move(v), means[i].units, sh});
    }
    for (std::size_t a = 0; a < static_cast<std::size_t>(b.dims); ++a) {
      if (averaged[a]) continue;
      std::vector<double> centres;
      for (index_t k = 0; k < b.global[a]; ++k) centres.push_back((double(k) + 0.5) * grid.spacing[a]);
      result.push_back({std::string("profile_") + "xyz"[a], std::move(centres), "m"});
    }
    return result;
  }
};

StatisticsOutput::StatisticsOutput(Model& model, sim::Simulation& simulation, RunOutput& out,
                                   const config::RunSpec& spec, const RunStart& start) {
  const config::StatisticsSpec& st = spec.output.statistics;
  if (!st.every.enabled()) return;
  sums_ = std::make_unique<Sums>(model, out, spec, start);
  simulation.add("statistics", st.every, [s = sums_.get()](const sim::Clock& clk) { s->sample(clk); });
  simulation.add(
      "statistics_file", st.write_every, [s = sums_.get()](const sim::Clock& clk) { s->write(clk); }, true);
}

StatisticsOutput::~StatisticsOutput() = default;

std::vector<io::CheckpointArray> StatisticsOutput::checkpoint_arrays() {
  if (!sums_) return {};
  Sums& s = *sums_;
  const std::vector<double> slots = s.sums.to_host();
  const std::size_t cells = static_cast<std::size_t>(s.model.grid().block.local_cells());
  const auto n = static_cast<std::size_t>(s.layout.count());
  s.host.resize(slots.size());
  for (std::size_t c = 0; c < cells; ++c)
    for (std::size_t k = 0; k < n; ++k) s.host[c * n + k] = slots[k * cells + c];
  return {{"statistics",
           &s.model.grid().block,
           s.layout.count(),
           s.host.data(),
           {double(s.samples), s.t_start, s.t_end, layout_code(s.layout)}}};
}

}  // namespace eddy::app
