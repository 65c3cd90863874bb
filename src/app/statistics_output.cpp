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

/// The points of the profiles (output.statistics.average_over): a cell's global indices along the
/// directions not averaged, the first fastest; `line` cells average into a point.
struct ProfileGrid {
  bool averaged[3] = {false, false, false};
  index_t points = 1, stride[3] = {0, 0, 0};
  double line = 1.0;
  std::vector<index_t> shape;  ///< of a profile, slowest first

  ProfileGrid(const std::vector<std::string>& over, const io::Block& b) {
    for (const std::string& a : over) averaged[a[0] - 'x'] = true;
    for (std::size_t a = 0; a < static_cast<std::size_t>(b.dims); ++a) {
      if (averaged[a]) {
        line *= double(b.global[a]);
      } else {
        stride[a] = points;
        points *= b.global[a];
      }
    }
    for (int a = b.dims - 1; a >= 0; --a)
      if (!averaged[a]) shape.push_back(b.global[static_cast<std::size_t>(a)]);
  }
  index_t point(const io::Block& b, index_t x, index_t y, index_t z) const {
    return (x + b.offset[0]) * stride[0] + (y + b.offset[1]) * stride[1] + (z + b.offset[2]) * stride[2];
  }
  /// The centres of the cells along the directions not averaged.
  void add_centres(const FieldGrid& grid, std::vector<GlobalData>& out) const {
    for (std::size_t a = 0; a < static_cast<std::size_t>(grid.block.dims); ++a) {
      if (averaged[a]) continue;
      std::vector<double> centres;
      for (index_t k = 0; k < grid.block.global[a]; ++k)
        centres.push_back((double(k) + 0.5) * grid.spacing[a]);
      out.push_back({std::string("profile_") + "xyz"[a], std::move(centres), "m"});
    }
  }
  /// Which directions are averaged, as a checkpoint records it.
  double code() const {
    return double((averaged[0] ? 1 : 0) + (averaged[1] ? 2 : 0) + (averaged[2] ? 4 : 0));
  }
};

/// Carries of summed limbs (parallel::Comm::sum_limbs) moved up: [0, 2^32), [0, 2^32), the rest.
void normalize_limbs(std::vector<long long>& l) {
  for (std::size_t e = 0; 3 * e < l.size(); ++e) {
    long long* v = l.data() + 3 * e;
    v[1] += v[0] >> 32, v[0] &= 0xffffffffll;
    v[2] += v[1] >> 32, v[1] &= 0xffffffffll;
  }
}

}  // namespace

struct StatisticsOutput::Sums {
  Model& model;
  RunOutput& out;
  const config::RunSpec& spec;
  field::MomentLayout layout;
  std::vector<MeanField> means;
  bool per_cell = true;
  ProfileGrid pgrid;
  backend::DeviceArray<double> sums;  ///< per_cell: count() sums a cell
  field::ProfileSums profile;         ///< per_cell false: exact profile sums, the ones this run added
  std::vector<long long> base;        ///< per_cell false, rank 0: the totals a restart continued from
  long pending = -1;                  ///< per_cell false: the step of a sample the next step takes
  std::vector<double> host;           ///< the sums for a checkpoint
  io::Block profile_block_;           ///< the block of the checkpoint's profile totals
  long samples = 0;
  double t_start = 0.0, t_end = 0.0;

  Sums(Model& m, RunOutput& o, const config::RunSpec& s, const RunStart& start)
      : model(m),
        out(o),
        spec(s),
        per_cell(s.output.statistics.per_cell),
        pgrid(s.output.statistics.average_over, m.grid().block) {
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
    if (per_cell)
      sums.resize(static_cast<std::size_t>(b.local_cells() * layout.count()));
    else
      profile = field::ProfileSums(layout, b.extent, pgrid.averaged);
    if (start.restarted) per_cell ? resume(start) : resume_profile(start);
  }

  /// The checkpoint's array of the profile totals: on rank 0, every point's, 4 numbers a slot (the limbs,
  /// the signed one split in two, so that each is exact in a double); nothing on the other ranks.
  io::Block profile_block() const {
    io::Block b = io::Block::whole(1, {pgrid.points, 1, 1});
    if (!out.comm().root()) b.extent = {0, 1, 1};
    return b;
  }

  void resume_profile(const RunStart& start) {
    const int n = 4 * layout.count();
    const io::Block block = profile_block();
    const io::CheckpointArrayRead r =
        io::read_checkpoint_array(start.checkpoint, "statistics_profile", block, n, out.comm());
    if (r.found && r.info.size() == 5 && r.info[3] == layout_code(layout) && r.info[4] == pgrid.code()) {
      base.assign(3 * r.values.size() / 4, 0);
      for (std::size_t e = 0; 4 * e < r.values.size(); ++e) {
        const double* v = r.values.data() + 4 * e;
        base[3 * e] = static_cast<long long>(v[0]), base[3 * e + 1] = static_cast<long long>(v[1]);
        base[3 * e + 2] = static_cast<long long>(v[3]) * (1ll << 32) + static_cast<long long>(v[2]);
      }
      samples = static_cast<long>(r.info[0]), t_start = r.info[1], t_end = r.info[2];
      log::info(cat("statistics continued from ", start.checkpoint, ": ", samples,
                    " samples since t = ", t_start, " s"));
      return;
    }
    log::warn(cat(
        "statistics: ", r.found ? "the checkpoint's statistics sum other fields or other directions" : r.why,
        "; they start anew at step ", start.step));
  }

  /// The exact totals of every profile point, the same on every rank: their limbs summed over the ranks
  /// and normalized, and the totals x 2^-64 rounded once to double. A sample a step was to take is taken
  /// now. Collective.
  struct Totals {
    std::vector<long long> limbs;
    std::vector<double> values;
  };
  Totals profile_totals(const sim::Clock& clk) {
    if (pending == clk.step) model.add_profile(profile.view(), false);
    pending = -1;
    const std::vector<long long> local = profile.totals();
    const auto slots = static_cast<std::size_t>(layout.count());
    Totals t;
    t.limbs.assign(3 * slots * static_cast<std::size_t>(pgrid.points), 0);
    if (!base.empty()) t.limbs = base;
    const io::Block& b = model.grid().block;
    index_t bin = 0;
    // The local bins in the order of field::ProfileSums: x fastest over the directions not averaged.
    for (index_t z = 0; z < (pgrid.averaged[2] ? 1 : b.extent[2]); ++z)
      for (index_t y = 0; y < (pgrid.averaged[1] ? 1 : b.extent[1]); ++y)
        for (index_t x = 0; x < (pgrid.averaged[0] ? 1 : b.extent[0]); ++x, ++bin) {
          const auto p = static_cast<std::size_t>(pgrid.point(b, x, y, z));
          for (std::size_t k = 0; k < 3 * slots; ++k)
            t.limbs[3 * slots * p + k] += local[3 * slots * static_cast<std::size_t>(bin) + k];
        }
    t.values = out.comm().sum_limbs(t.limbs, {64});
    normalize_limbs(t.limbs);
    return t;
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
    if (per_cell) {
      model.add_moments({sums.data(), model.grid().block.local_cells(), layout});
    } else {
      profile.fold();  // the sample the last step took
      model.add_profile(profile.view(), true);
      pending = clk.step;
    }
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
    const std::vector<std::pair<std::string, double>> attributes{
        {"samples", double(samples)}, {"t_start", t_start}, {"t_end", t_end}};
    if (!per_cell) {
      out.write_statistics(clk.step, clk.time, model.grid(), {}, exact_profiles(profile_totals(clk).values),
                           attributes);
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
    out.write_statistics(clk.step, clk.time, grid, fields, profiles(data), attributes);
  }

  /// The profiles from the exact totals (profile_totals): a point's mean is its total over samples x
  /// line, then (mean + offset) x factor, as the per-cell means are.
  std::vector<GlobalData> exact_profiles(const std::vector<double>& totals) const {
    const auto slots = static_cast<std::size_t>(layout.count());
    const double n = double(samples) * pgrid.line;
    std::vector<GlobalData> result;
    for (const MeanField& m : means) {
      std::vector<double> values;
      for (std::size_t p = 0; p < static_cast<std::size_t>(pgrid.points); ++p)
        for (std::size_t k = 0; k < static_cast<std::size_t>(m.comps); ++k)
          values.push_back((totals[p * slots + static_cast<std::size_t>(m.slot) + k] / n + m.offset) *
                           m.factor);
      std::vector<index_t> sh = pgrid.shape;
      if (m.comps > 1) sh.push_back(static_cast<index_t>(m.comps));
      result.push_back({"profile_" + m.name, std::move(values), m.units, sh});
    }
    pgrid.add_centres(model.grid(), result);
    return result;
  }

  /// The means averaged over output.statistics.average_over, and the cell centres of the directions left:
  /// exact sums over the cells and ranks, divided by the cells of a line.
  std::vector<GlobalData> profiles(const std::vector<std::vector<double>>& data) const {
    if (spec.output.statistics.average_over.empty()) return {};
    const io::Block& b = model.grid().block;
    std::vector<index_t> point_of(static_cast<std::size_t>(b.local_cells()));
    for (index_t z = 0, c = 0; z < b.extent[2]; ++z)
      for (index_t y = 0; y < b.extent[1]; ++y)
        for (index_t x = 0; x < b.extent[0]; ++x, ++c)
          point_of[static_cast<std::size_t>(c)] = pgrid.point(b, x, y, z);
    std::vector<GlobalData> result;
    for (std::size_t i = 0; i < means.size(); ++i) {
      const auto comps = static_cast<std::size_t>(means[i].comps);
      std::vector<std::vector<double>> terms(static_cast<std::size_t>(pgrid.points) * comps);
      for (std::size_t c = 0; c < point_of.size(); ++c)
        for (std::size_t k = 0; k < comps; ++k)
          terms[static_cast<std::size_t>(point_of[c]) * comps + k].push_back(data[i][c * comps + k]);
      std::vector<double> v = out.comm().sum_exact(terms, pgrid.line);
      for (double& x : v) x /= pgrid.line;
      std::vector<index_t> sh = pgrid.shape;
      if (comps > 1) sh.push_back(static_cast<index_t>(comps));
      result.push_back({"profile_" + means[i].name, std::move(v), means[i].units, sh});
    }
    pgrid.add_centres(model.grid(), result);
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

std::vector<io::CheckpointArray> StatisticsOutput::checkpoint_arrays(const sim::Clock& clock) {
  if (!sums_) return {};
  Sums& s = *sums_;
  if (!s.per_cell) {
    // Every point's totals on rank 0, the signed limb split in two halves, so that each is exact.
    const std::vector<long long> limbs = s.profile_totals(clock).limbs;
    s.profile_block_ = s.profile_block();
    s.host.clear();
    if (s.out.comm().root())
      for (std::size_t e = 0; 3 * e < limbs.size(); ++e) {
        const long long* l = limbs.data() + 3 * e;
        s.host.insert(s.host.end(),
                      {double(l[0]), double(l[1]), double(l[2] & 0xffffffffll), double(l[2] >> 32)});
      }
    return {{"statistics_profile",
             &s.profile_block_,
             4 * s.layout.count(),
             s.host.data(),
             {double(s.samples), s.t_start, s.t_end, layout_code(s.layout), s.pgrid.code()}}};
  }
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
