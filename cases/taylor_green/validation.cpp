// The Taylor-Green vortex's validations:
// - taylor_green (2D, either solver): the relative L2 error of the velocity against the exact decaying
//   solution (src/field/taylor_green.hpp);
// - tgv_re1600 (3D): the dissipation over time against the 512^3 spectral DNS of the HiOCFD case C3.5
//   (tgv_re1600_dissipation.csv beside this file: t, kinetic energy, -dE/dt, enstrophy).
#include "app/validation.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/log.hpp"
#include "field/taylor_green.hpp"

namespace eddy::cases {
namespace {

constexpr double no_bound = std::numeric_limits<double>::infinity();

class TaylorGreenError : public app::Validation {
 public:
  void check(const config::RunSpec& spec) const override {
    if (spec.dimensions() != 2)
      throw InputError(log::cat("validation.reference: taylor_green compares with the exact 2D solution; ",
                                "domain.cells has ", spec.dimensions(),
                                " entries (the 3D vortex has none: use tgv_re1600)"));
  }

  /// Each rank sums the squared error and norm over its own cells; the sums over ranks differ from one
  /// rank's by round-off only.
  std::vector<app::ValidationResult> finish(const app::FinalState& st, double tolerance) const override {
    field::TaylorGreen tg;
    tg.dims = 2;
    tg.U = st.spec.initial.amplitude > 0 ? st.spec.initial.amplitude : st.spec.physics.velocity;
    tg.L = st.spec.domain.length[0];
    tg.nu = st.nu;
    const io::Block& b = st.block;
    double e2 = 0, n2 = 0;
    for (index_t j = 0; j < b.extent[1]; ++j)
      for (index_t i = 0; i < b.extent[0]; ++i) {
        const double x = (double(b.offset[0] + i) + 0.5) * st.spacing[0];
        const double y = (double(b.offset[1] + j) + 0.5) * st.spacing[1];
        const Real3 ex = tg.velocity({x, y, 0.0}, st.time);
        const std::size_t k = static_cast<std::size_t>(j * b.extent[0] + i) * 2;
        const double du = st.velocity[k] - ex[0], dv = st.velocity[k + 1] - ex[1];
        e2 += du * du + dv * dv;
        n2 += ex[0] * ex[0] + ex[1] * ex[1];
      }
    const double error = std::sqrt(st.comm.sum(e2) / st.comm.sum(n2));
    return {app::figure(
        "taylor_green", "velocity_l2_error", error,
        log::cat("relative L2 error of the velocity against the exact solution at t = ", st.time, " s"),
        tolerance > 0 ? tolerance : no_bound)};
  }
};

/// The DNS table.
struct TgvReference {
  std::vector<double> t, energy, dissipation, enstrophy;  ///< dissipation = -dE/dt of the DNS

  /// Lines starting with '#' and the header are skipped. InputError names the file.
  static TgvReference read(const std::string& file) {
    std::ifstream in = app::open_table(file, "Taylor-Green reference");
    TgvReference r;
    std::string line;
    static const char* const names[] = {"t", "kinetic_energy", "dissipation", "enstrophy"};
    for (long n = 1; std::getline(in, line); ++n) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || line[0] == '#' || (r.t.empty() && line[0] == 't')) continue;
      std::vector<std::string> f;
      std::istringstream s(line);
      for (std::string field; std::getline(s, field, ',');) f.push_back(field);
      if (f.size() != 4)
        throw InputError(log::cat(file, ":", n,
                                  ": expected 4 columns t,kinetic_energy,dissipation,enstrophy, got ",
                                  f.size(), ": '", line, "' (validation.file)"));
      double v[4];
      for (std::size_t c = 0; c < 4; ++c) v[c] = app::table_number(f[c], file, n, names[c]);
      if (!r.t.empty() && !(v[0] > r.t.back()))
        throw InputError(log::cat(file, ":", n, ": column t: ", v[0],
                                  " does not increase (the row before has ", r.t.back(),
                                  "; validation.file)"));
      r.t.push_back(v[0]), r.energy.push_back(v[1]), r.dissipation.push_back(v[2]),
          r.enstrophy.push_back(v[3]);
    }
    if (r.t.size() < 2) throw InputError(file + ": fewer than two data rows (validation.file)");
    return r;
  }

  /// Linear interpolation of column `c` at time t (clamped to the table).
  double at(const std::vector<double>& c, double time) const {
    if (time <= t.front()) return c.front();
    if (time >= t.back()) return c.back();
    const std::size_t k = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), time) - t.begin());
    const double w = (time - t[k - 1]) / (t[k] - t[k - 1]);
    return (1 - w) * c[k - 1] + w * c[k];
  }
};

std::string reference_file(const config::RunSpec& spec) {
  return spec.validation.file.empty() ? app::shipped_file("cases/taylor_green/tgv_re1600_dissipation.csv")
                                      : spec.validation.file;
}

class TgvRe1600 : public app::Validation {
 public:
  void check(const config::RunSpec& spec) const override {
    if (spec.dimensions() != 3)
      throw InputError(log::cat("validation.reference: tgv_re1600 compares the 3D vortex; domain.cells has ",
                                spec.dimensions(), " entries (in 2D use taylor_green)"));
    TgvReference::read(reference_file(spec));
  }

  /// The run's dissipation samples (the same on every rank: reduced diagnostics) up to the table's end.
  std::vector<app::ValidationResult> finish(const app::FinalState& st, double tolerance) const override {
    const TgvReference ref = TgvReference::read(reference_file(st.spec));
    const app::EnergySeries& s = st.series;
    double max_dev = 0, at_time = 0, peak = 0, peak_time = 0, energy_dev = 0, enstrophy_dev = 0;
    std::size_t points = 0;
    for (std::size_t k = 0; k < s.t.size(); ++k) {
      if (s.t[k] > ref.t.back() + 1e-9) break;
      const double e = std::fabs(s.eps[k] - ref.at(ref.dissipation, s.t[k]));
      if (e > max_dev) max_dev = e, at_time = s.t[k];
      energy_dev = std::max(energy_dev, std::fabs(s.e[k] - ref.at(ref.energy, s.t[k])));
      // Against the reference's enstrophy, exact at t = 0 (its -dE/dt column is a difference quotient).
      enstrophy_dev =
          std::max(enstrophy_dev, std::fabs(s.eps[k] - 2 * st.nu * ref.at(ref.enstrophy, s.t[k])));
      if (s.eps[k] > peak) peak = s.eps[k], peak_time = s.t[k];
      ++points;
    }
    const double t_end = points ? s.t[points - 1] : 0.0;
    double ref_peak = 0, ref_peak_time = 0;
    for (std::size_t k = 0; k < ref.t.size() && ref.t[k] <= t_end + 1e-9; ++k)
      if (ref.dissipation[k] > ref_peak) ref_peak = ref.dissipation[k], ref_peak_time = ref.t[k];
    const double relative = ref_peak > 0 ? max_dev / ref_peak : 0.0;
    log::info(log::cat("Taylor-Green Re 1600 against the 512^3 DNS (", points, " ", s.what, " to t = ", t_end,
                       " s): max |eps - eps_ref| = ", max_dev, " at t = ", at_time, " s = ", 100 * relative,
                       "% of the reference peak ", ref_peak, " (t = ", ref_peak_time, " s); eddy's peak ",
                       peak, " at t = ", peak_time, " s (", 100 * (ref_peak > 0 ? peak / ref_peak - 1 : 0.0),
                       "%); max |E - E_ref| = ", energy_dev, ", max |eps - 2 nu Z_ref| = ", enstrophy_dev));
    return {app::figure("tgv_re1600", "dissipation_max_deviation", relative,
                        "max |eps - eps_ref| / max eps_ref", tolerance > 0 ? tolerance : no_bound),
            app::figure("tgv_re1600", "energy_max_deviation", energy_dev, "max |E - E_ref| [m^2/s^2]"),
            app::figure("tgv_re1600", "enstrophy_max_deviation", enstrophy_dev,
                        "max |eps - 2 nu Z_ref| [m^2/s^3]"),
            app::figure("tgv_re1600", "peak_deviation", ref_peak > 0 ? peak / ref_peak - 1 : 0.0,
                        "max eps / max eps_ref - 1"),
            app::figure("tgv_re1600", "samples", double(points), "samples compared")};
  }
};

}  // namespace

void register_taylor_green(app::ValidationRegistry& registry) {
  registry.add("taylor_green", "2D Taylor-Green vortex against the exact solution",
               std::make_unique<TaylorGreenError>());
  registry.add("tgv_re1600", "3D Taylor-Green vortex at Re 1600: dissipation against the 512^3 DNS",
               std::make_unique<TgvRe1600>());
}

}  // namespace eddy::cases
