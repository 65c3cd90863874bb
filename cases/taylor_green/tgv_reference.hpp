#pragma once
/// The Taylor-Green vortex at Re = 1600 (HiOCFD case C3.5): the 512^3 spectral DNS reference
/// (tgv_re1600_dissipation.csv beside this file: t, kinetic energy, -dE/dt, enstrophy) and the
/// comparison `eddy run` prints for validation.reference: tgv_re1600.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace eddy::cases {

struct TgvReference {
  std::vector<double> t, energy, dissipation, enstrophy;  ///< dissipation = -dE/dt of the DNS

  /// Read the CSV (lines starting with '#' and the header are skipped). InputError names the file.
  static TgvReference read(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw InputError(file + ": cannot open the Taylor-Green reference (validation.file)");
    TgvReference r;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line[0] == 't') continue;
      std::replace(line.begin(), line.end(), ',', ' ');
      std::istringstream s(line);
      double v[4];
      if (!(s >> v[0] >> v[1] >> v[2] >> v[3]))
        throw InputError(file + ": expected 't,kinetic_energy,dissipation,enstrophy' rows, got '" + line +
                         "'");
      r.t.push_back(v[0]), r.energy.push_back(v[1]), r.dissipation.push_back(v[2]),
          r.enstrophy.push_back(v[3]);
    }
    if (r.t.size() < 2) throw InputError(file + ": no data rows");
    return r;
  }

  /// Linear interpolation of column `c` at time t (clamped to the table).
  static double at(const std::vector<double>& ts, const std::vector<double>& c, double t) {
    if (t <= ts.front()) return c.front();
    if (t >= ts.back()) return c.back();
    const std::size_t k = static_cast<std::size_t>(std::upper_bound(ts.begin(), ts.end(), t) - ts.begin());
    const double w = (t - ts[k - 1]) / (ts[k] - ts[k - 1]);
    return (1 - w) * c[k - 1] + w * c[k];
  }
};

/// eddy's dissipation 2 nu <|omega|^2>/2 over time against the reference -dE/dt.
struct TgvComparison {
  double max_deviation = 0.0;   ///< max over eddy's times <= the table's end of |eps - eps_ref|
  double at_time = 0.0;         ///< where it occurs
  double reference_peak = 0.0;  ///< max eps_ref over the compared time span
  double reference_peak_time = 0.0;
  double peak = 0.0;  ///< eddy's max eps and its time
  double peak_time = 0.0;
  double max_energy_deviation = 0.0;  ///< max |E - E_ref|
  double max_enstrophy_deviation =
      0.0;                 ///< max |eps - 2 nu Z_ref| (the reference's enstrophy, exact at t = 0;
                           ///< its -dE/dt column is a difference quotient, off by 7e-9 there)
  std::size_t points = 0;  ///< eddy's samples compared
  /// The figure of merit: max deviation relative to the reference peak.
  double relative() const { return reference_peak > 0 ? max_deviation / reference_peak : 0.0; }
};

inline TgvComparison compare_tgv(const std::vector<double>& t, const std::vector<double>& eps,
                                 const std::vector<double>& energy, double nu, const TgvReference& ref) {
  TgvComparison c;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] > ref.t.back() + 1e-9) break;
    const double e = std::fabs(eps[k] - TgvReference::at(ref.t, ref.dissipation, t[k]));
    if (e > c.max_deviation) c.max_deviation = e, c.at_time = t[k];
    c.max_energy_deviation =
        std::max(c.max_energy_deviation, std::fabs(energy[k] - TgvReference::at(ref.t, ref.energy, t[k])));
    c.max_enstrophy_deviation = std::max(
        c.max_enstrophy_deviation, std::fabs(eps[k] - 2 * nu * TgvReference::at(ref.t, ref.enstrophy, t[k])));
    if (eps[k] > c.peak) c.peak = eps[k], c.peak_time = t[k];
    ++c.points;
  }
  const double t_end = c.points ? t[c.points - 1] : 0.0;
  for (std::size_t k = 0; k < ref.t.size() && ref.t[k] <= t_end + 1e-9; ++k)
    if (ref.dissipation[k] > c.reference_peak)
      c.reference_peak = ref.dissipation[k], c.reference_peak_time = ref.t[k];
  return c;
}

/// One line for the log: the comparison of `what` (e.g. "samples of -dE/dt") up to t_end.
inline std::string describe(const TgvComparison& v, const std::string& what, double t_end) {
  std::ostringstream o;
  o << "Taylor-Green Re 1600 against the 512^3 DNS (" << v.points << " " << what << " to t = " << t_end
    << " s): max |eps - eps_ref| = " << v.max_deviation << " at t = " << v.at_time
    << " s = " << 100 * v.relative() << "% of the reference peak " << v.reference_peak
    << " (t = " << v.reference_peak_time << " s); eddy's peak " << v.peak << " at t = " << v.peak_time
    << " s (" << 100 * (v.reference_peak > 0 ? v.peak / v.reference_peak - 1 : 0.0)
    << "%); max |E - E_ref| = " << v.max_energy_deviation
    << ", max |eps - 2 nu Z_ref| = " << v.max_enstrophy_deviation;
  return o.str();
}

/// The shipped reference table.
inline std::string default_tgv_file() {
  return std::string(EDDY_SOURCE_DIR) + "/cases/taylor_green/tgv_re1600_dissipation.csv";
}

}  // namespace eddy::cases
