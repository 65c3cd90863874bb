#include "app/series_output.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/log.hpp"
#include "sim/simulation.hpp"
#include "spectral/grid.hpp"
#include "spectral/spectrum.hpp"

namespace eddy::app {
using log::cat;

namespace {

const char* const probes_file = "probes.h5";
const char* const spectra_file = "spectra.h5";

/// The text attributes every series file carries.
std::vector<std::pair<std::string, std::string>> run_attributes(const config::RunSpec& spec) {
  return {{"solver", spec.solver}, {"eddy_version", EDDY_VERSION}, {"resolved_config", spec.resolved_yaml}};
}

/// The entry `name` of the model's globals(); Error if it has none.
std::vector<double> global(const std::vector<GlobalData>& globals, const std::string& name) {
  for (const GlobalData& g : globals)
    if (g.name == name) return g.values;
  throw Error("output.spectra: the solver gives no '" + name + "'");
}

}  // namespace

ProbeStencil probe_stencil(const std::vector<double>& point, int dims, const Int3& cells,
                           const Real3& spacing, const std::array<bool, 3>& periodic) {
  ProbeStencil s;
  s.corners = 1 << dims;
  index_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  double t[3] = {0.0, 0.0, 0.0};
  for (int a = 0; a < dims; ++a) {
    const auto k = static_cast<std::size_t>(a);
    const index_t n = cells[k];
    // Position in units of cells from the first centre: centre i is at i.
    const double x = point[k] / spacing[k] - 0.5;
    const double f = std::floor(x);
    auto i = static_cast<index_t>(f);
    if (periodic[k]) {
      t[a] = x - f;
      lo[a] = ((i % n) + n) % n, hi[a] = (lo[a] + 1) % n;
    } else if (x <= 0.0) {  // between the wall and the first centre: that cell's value
      lo[a] = hi[a] = 0;
    } else if (x >= double(n - 1)) {  // past the last centre
      lo[a] = hi[a] = n - 1;
    } else {
      t[a] = x - f;
      lo[a] = i, hi[a] = i + 1;
    }
    if (t[a] == 0.0) hi[a] = lo[a];  // on a centre: that cell alone
  }
  for (int c = 0; c < s.corners; ++c) {
    double w = 1.0;
    for (int a = 0; a < dims; ++a) {
      const bool up = (c >> a) & 1;
      s.cell[static_cast<std::size_t>(c)][static_cast<std::size_t>(a)] = up ? hi[a] : lo[a];
      w *= up ? t[a] : 1.0 - t[a];
    }
    s.weight[static_cast<std::size_t>(c)] = w;
  }
  return s;
}

io::SeriesLayout probes_layout(const Model& model, const config::RunSpec& spec) {
  const config::ProbesSpec& p = spec.output.probes;
  io::SeriesLayout l;
  l.key = "output.probes";
  const std::vector<ProbeField> available = model.probe_fields();
  const auto points = static_cast<index_t>(p.points.size());
  for (const std::string& name : p.fields) {
    const auto f =
        std::find_if(available.begin(), available.end(), [&](const ProbeField& a) { return a.name == name; });
    if (f == available.end())
      throw InputError(cat("output.probes.fields: '", name, "' is not a field of solver ", spec.solver));
    l.columns.push_back({name, {points, f->components}, {}, f->units});
  }
  io::SeriesArray at{"points", {points, static_cast<index_t>(spec.dimensions())}, {}, ""};
  for (const std::vector<double>& x : p.points) at.values.insert(at.values.end(), x.begin(), x.end());
  l.attributes.push_back(std::move(at));
  l.text = run_attributes(spec);
  l.text.emplace_back(
      "interpolation",
      "trilinear (bilinear in 2D) from the cell centres ((i, j, k) + 1/2) dx around each point; "
      "past the outermost centre of a non-periodic axis the nearest interior cells' values; "
      "periodic axes wrap");
  return l;
}

io::SeriesLayout spectra_layout(const config::RunSpec& spec) {
  io::SeriesLayout l;
  l.key = "output.spectra";
  // The shells of the box, as both solvers' spectra have them (spectral::spectrum_shells), without
  // computing a spectrum.
  Int3 cells{1, 1, 1};
  Real3 length{1.0, 1.0, 1.0};
  for (std::size_t d = 0; d < static_cast<std::size_t>(spec.dimensions()); ++d)
    cells[d] = spec.domain.cells[d], length[d] = spec.domain.length[d];
  const std::vector<double> k =
      spectral::spectrum_shells(spectral::Grid::make(spec.dimensions(), cells, length, 1, 0)).k;
  const auto shells = static_cast<index_t>(k.size());
  l.datasets.push_back({"k", {shells}, k, "1/m"});
  l.columns.push_back({"energy_spectrum", {shells}, {}, "m^3/s^2"});
  if (spec.dimensions() == 2) l.columns.push_back({"enstrophy_spectrum", {shells}, {}, "m/s^2"});
  l.text = run_attributes(spec);
  l.text.emplace_back("shells",
                      "shell j holds the modes with j - 1/2 <= |k| / dk < j + 1/2, dk = k[1]; E(k_j) = shell "
                      "energy / dk, so sum E dk = kinetic_energy; enstrophy_spectrum = k^2 E(k)");
  return l;
}

void check_resume_series(Model& model, const config::RunSpec& spec, const RunOptions& opt,
                         const parallel::Comm& comm) {
  if (spec.output.probes.every.enabled())
    check_resume(spec, opt, probes_file, probes_layout(model, spec), comm);
  if (spec.output.spectra.every.enabled()) check_resume(spec, opt, spectra_file, spectra_layout(spec), comm);
}

/// probes.h5: for each point its stencil; this rank's cells among the corners, read from the model at
/// once; the corner values summed over the ranks, then weighted.
struct SeriesOutputs::Probes {
  Model& model;
  const parallel::Comm& comm;
  std::vector<std::string> names;
  std::vector<int> components;
  std::size_t points = 0;
  int corners = 0;
  std::vector<double> weight;  ///< per (point, corner)
  std::vector<long> slot;      ///< per (point, corner): the corner's place in `cells`, -1 on another rank
  std::vector<index_t> cells;  ///< this rank's distinct corner cells (local indices)
  std::unique_ptr<io::SeriesFile> file;

  Probes(Model& m, const RunOutput& out, const config::RunSpec& spec) : model(m), comm(out.comm()) {
    const io::SeriesLayout layout = probes_layout(model, spec);
    for (const io::SeriesArray& c : layout.columns)
      names.push_back(c.name), components.push_back(static_cast<int>(c.shape[1]));
    const FieldGrid& g = model.grid();
    const io::Block& b = g.block;
    points = spec.output.probes.points.size();
    corners = 1 << b.dims;
    std::map<index_t, long> mine;  // local cell -> its place in `cells`
    for (const std::vector<double>& x : spec.output.probes.points) {
      const ProbeStencil st = probe_stencil(x, b.dims, b.global, g.spacing, g.periodic);
      for (int c = 0; c < corners; ++c) {
        const Int3& cell = st.cell[static_cast<std::size_t>(c)];
        weight.push_back(st.weight[static_cast<std::size_t>(c)]);
        bool in = true;
        for (std::size_t a = 0; a < 3; ++a)
          in = in && cell[a] >= b.offset[a] && cell[a] < b.offset[a] + b.extent[a];
        long at = -1;
        if (in) {
          const index_t local =
              ((cell[2] - b.offset[2]) * b.extent[1] + cell[1] - b.offset[1]) * b.extent[0] + cell[0] -
              b.offset[0];
          const auto found = mine.emplace(local, static_cast<long>(cells.size()));
          if (found.second) cells.push_back(local);
          at = found.first->second;
        }
        slot.push_back(at);
      }
    }
    file = out.open_series(probes_file, layout);
  }

  void sample(const sim::Clock& clk) {
    const std::vector<std::vector<double>> values = model.values_at(names, cells);
    // Every field's corner values in one buffer, (field, point, corner, component): the owner's value
    // (+ 0.0, so that a -0 reads the same on every rank count), zeros from the other ranks.
    std::vector<std::size_t> offset{0};
    for (int n : components) offset.push_back(offset.back() + points * std::size_t(corners) * std::size_t(n));
    std::vector<double> corner(offset.back(), 0.0);
    for (std::size_t f = 0; f < names.size(); ++f) {
      const auto n = static_cast<std::size_t>(components[f]);
      for (std::size_t pc = 0; pc < slot.size(); ++pc)
        if (slot[pc] >= 0)
          for (std::size_t k = 0; k < n; ++k)
            corner[offset[f] + pc * n + k] = values[f][static_cast<std::size_t>(slot[pc]) * n + k] + 0.0;
    }
    comm.sum(corner);
    std::vector<std::vector<double>> rows(names.size());
    for (std::size_t f = 0; f < names.size(); ++f) {
      const auto n = static_cast<std::size_t>(components[f]);
      rows[f].assign(points * n, 0.0);
      for (std::size_t p = 0; p < points; ++p)
        for (std::size_t k = 0; k < n; ++k) {
          double v = 0.0;
          for (std::size_t c = 0; c < std::size_t(corners); ++c) {
            const std::size_t pc = p * std::size_t(corners) + c;
            v += weight[pc] * corner[offset[f] + pc * n + k];
          }
          rows[f][p * n + k] = v;
        }
    }
    file->append(clk.step, clk.time, rows);
  }
};

/// spectra.h5: the model's energy spectrum as it is, and k^2 E(k) in 2D.
struct SeriesOutputs::Spectra {
  Model& model;
  std::vector<double> k;
  bool enstrophy = false;
  std::unique_ptr<io::SeriesFile> file;

  Spectra(Model& m, const RunOutput& out, const config::RunSpec& spec) : model(m) {
    const io::SeriesLayout layout = spectra_layout(spec);
    k = layout.datasets[0].values;
    enstrophy = layout.columns.size() > 1;
    file = out.open_series(spectra_file, layout);
  }

  void sample(const sim::Clock& clk) {
    std::vector<std::vector<double>> rows{global(model.globals(), "energy_spectrum")};
    if (enstrophy) {
      std::vector<double> z = rows[0];
      for (std::size_t j = 0; j < z.size(); ++j) z[j] *= k[j] * k[j];
      rows.push_back(std::move(z));
    }
    file->append(clk.step, clk.time, rows);
  }
};

SeriesOutputs::SeriesOutputs(Model& model, sim::Simulation& simulation, const RunOutput& out,
                             const config::RunSpec& spec) {
  if (spec.output.probes.every.enabled()) {
    probes_ = std::make_unique<Probes>(model, out, spec);
    simulation.add("probes", spec.output.probes.every,
                   [p = probes_.get()](const sim::Clock& clk) { p->sample(clk); });
  }
  if (spec.output.spectra.every.enabled()) {
    spectra_ = std::make_unique<Spectra>(model, out, spec);
    simulation.add("spectra", spec.output.spectra.every,
                   [s = spectra_.get()](const sim::Clock& clk) { s->sample(clk); });
  }
}

SeriesOutputs::~SeriesOutputs() = default;

}  // namespace eddy::app
