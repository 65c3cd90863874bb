#pragma once
/// Comparisons of a finished run against published references, printed at the end of `eddy run`.
#include <string>
#include <vector>

#include "cases/taylor_green/taylor_green.hpp"
#include "cases/taylor_green/tgv_reference.hpp"
#include "core/types.hpp"

namespace eddy::app {

/// One centreline profile compared with reference points.
struct ProfileComparison {
  std::string name;                  ///< e.g. "u(y) at x = 0.5"
  std::vector<double> coord, value;  ///< reference coordinates (0..1) and values / U
  std::vector<double> eddy;          ///< eddy's profile interpolated at the reference coordinates
  std::vector<bool> excluded;        ///< reference points left out of the maximum (published errata)
  double max_abs_error = 0.0;        ///< max |eddy - reference| / U
  double coord_of_max = 0.0;         ///< where it occurs
};

/// Lid-driven cavity centreline velocities against Ghia, Ghia & Shin (1982).
struct GhiaComparison {
  double reynolds = 0.0;
  ProfileComparison u_vs_y, v_vs_x;
  double max_abs_error() const { return std::max(u_vs_y.max_abs_error, v_vs_x.max_abs_error); }
};

/// Compare the 2D cavity velocity (interior cells, x fastest, 2 components, divided by the lid speed)
/// with the Ghia table in `file` for Reynolds number `re`. Throws InputError if the file lacks that Re.
GhiaComparison compare_ghia(const std::vector<double>& u_over_U, index_t nx, index_t ny, double re,
                            const std::string& file);

/// The Ghia table's points for Re (values not compared yet); InputError naming the file when it lacks
/// that Re. Runs call it before computing, so a bad choice fails at once.
GhiaComparison read_ghia(const std::string& file, double re);

/// Text table of the comparison (what `eddy run` prints).
std::string format(const GhiaComparison& g);

/// Relative L2 error of a 2D velocity field (cells x fastest, 2 components, m/s, cell size dx) against
/// the exact Taylor-Green solution at time t.
double taylor_green_error(const std::vector<double>& velocity, index_t nx, index_t ny, double dx,
                          const cases::TaylorGreen& tg, double t);

/// validation.reference tgv_re1600: the run's series (times t, dissipation eps, kinetic energy e) against
/// the DNS table in `file` ("" = the shipped one), logged with `what` naming the compared samples.
cases::TgvComparison validate_tgv_re1600(const std::string& file, const std::vector<double>& t,
                                         const std::vector<double>& eps, const std::vector<double>& e,
                                         double nu, const std::string& what);

/// The shipped Ghia table for Re (cases/lid_driven_cavity/ghia1982_re3200_5000.csv for Re 3200 and 5000,
/// else ghia1982_re100_400_1000.csv).
std::string default_ghia_file(double re);

}  // namespace eddy::app
