// The lid-driven cavity's centreline velocities against tables beside this file, the lid at y = 1
// moving at U along x:
//   validation.reference: ghia1982 — the 2D cavity against Ghia, Ghia & Shin (1982), Table I (u along
//     x = 0.5) and Table II (v along y = 0.5);
//   validation.reference: albensoeder2005 — the cube at Re 1000 against Albensoeder & Kuhlmann (2005),
//     Tables 5 and 6 (u along x = z = 0.5, v along y = z = 0.5; cases/lid_driven_cavity/README.md).
#include "app/validation.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/log.hpp"

namespace eddy::cases {
namespace {

/// One centreline profile compared with the reference points.
struct Profile {
  std::string name;                  ///< e.g. "u/U along the vertical centreline x = 0.5"
  std::vector<double> coord, value;  ///< reference coordinates (0..1) and values / U
  std::vector<double> eddy;          ///< eddy's profile interpolated at the reference coordinates
  std::vector<bool> excluded;        ///< reference points left out of the maximum (published errata)
  double max_abs_error = 0.0;        ///< max |eddy - reference| / U
  double coord_of_max = 0.0;
};

/// A reference: which solution it is and its two centrelines.
struct Source {
  const char* key;      ///< validation.reference
  const char* authors;  ///< as the output names them
  const char* tag;      ///< the reference's column and subscript in the output (u_Ghia: scripts/post read it)
  int dims;             ///< 2: the square, 3: the cube
};
constexpr Source ghia{"ghia1982", "Ghia, Ghia & Shin (1982)", "Ghia", 2};
constexpr Source albensoeder{"albensoeder2005", "Albensoeder & Kuhlmann (2005)", "AK", 3};

struct Reference {
  Source source;
  double reynolds = 0.0;
  Profile u_vs_y, v_vs_x;
};

/// The shipped table for Re (Ghia's Re 3200 and 5000 in their own file).
std::string default_file(const Source& src, double re) {
  if (src.dims == 3) return app::shipped_file("cases/lid_driven_cavity/albensoeder2005_re1000.csv");
  const bool high = std::fabs(re - 3200.0) < 1e-9 * re || std::fabs(re - 5000.0) < 1e-9 * re;
  return app::shipped_file(std::string("cases/lid_driven_cavity/") +
                           (high ? "ghia1982_re3200_5000.csv" : "ghia1982_re100_400_1000.csv"));
}

std::string table_file(const Source& src, const config::RunSpec& spec) {
  return spec.validation.file.empty() ? default_file(src, spec.physics.reynolds) : spec.validation.file;
}

/// The table's points for Re; InputError naming the file when it lacks that Re.
Reference read(const Source& src, const std::string& file, double re) {
  std::ifstream in = app::open_table(file, std::string(src.tag) + " reference table");
  Reference g;
  g.source = src;
  g.reynolds = re;
  g.u_vs_y.name = src.dims == 3 ? "u/U along the vertical centreline x = z = 0.5"
                                : "u/U along the vertical centreline x = 0.5";
  g.v_vs_x.name = src.dims == 3 ? "v/U along the horizontal centreline y = z = 0.5"
                                : "v/U along the horizontal centreline y = 0.5";
  std::string line;
  std::getline(in, line);  // header: re,line,coord,value
  // Every row is checked, whichever Re it holds: a bad table is refused at start-up, naming file and line.
  for (long n = 2; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream s(line);
    for (std::string field; std::getline(s, field, ',');) f.push_back(field);
    if (f.size() != 4)
      throw InputError(log::cat(file, ":", n, ": expected 4 columns re,line,coord,value, got ", f.size(),
                                ": '", line, "' (validation.file)"));
    if (f[1] != "u_vs_y" && f[1] != "v_vs_x")
      throw InputError(
          log::cat(file, ":", n, ": column line: '", f[1], "' is not u_vs_y or v_vs_x (validation.file)"));
    const double f_re = app::table_number(f[0], file, n, "re");
    const double coord = app::table_number(f[2], file, n, "coord");
    const double value = app::table_number(f[3], file, n, "value");
    if (std::fabs(f_re - re) > 1e-9 * re) continue;
    Profile& p = f[1] == "u_vs_y" ? g.u_vs_y : g.v_vs_x;
    if (!p.coord.empty() && !(coord > p.coord.back()))
      throw InputError(log::cat(file, ":", n, ": column coord: ", coord,
                                " does not increase (the row before has ", p.coord.back(),
                                "; validation.file)"));
    p.coord.push_back(coord);
    p.value.push_back(value);
  }
  if (g.u_vs_y.coord.empty() || g.v_vs_x.coord.empty())
    throw InputError(file + ": no " + src.authors + " data for Re = " + std::to_string(re) +
                     " (physics.reynolds with validation.reference: " + src.key +
                     "); the shipped tables have " +
                     (src.dims == 3 ? "Re 1000" : "Re 100, 400, 1000, 3200 and 5000"));
  return g;
}

/// Linear interpolation of (xs, ys), xs increasing, at x (clamped to the ends).
double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  if (x <= xs.front()) return ys.front();
  if (x >= xs.back()) return ys.back();
  std::size_t k = 1;
  while (xs[k] < x) ++k;
  const double w = (x - xs[k - 1]) / (xs[k] - xs[k - 1]);
  return (1 - w) * ys[k - 1] + w * ys[k];
}

/// Component `comp` / U along a centreline (along y, or along x), through the middle of the cells across
/// it in x or y and, in 3D, in z (the mean of the two middle columns or rows when their count is even),
/// plus the wall values. Each rank puts its cells' shares in slots of their own, one per corner of the
/// middle (two in 2D, four in 3D), so every slot has at most one non-zero term and the sum over ranks is
/// the one-rank profile bit for bit, whatever the decomposition. The profile is one line of cells per
/// rank: O(n), not O(n^2).
void centreline(const app::FinalState& st, int comp, bool along_y, double wall_lo, double wall_hi,
                std::vector<double>& s, std::vector<double>& v) {
  const io::Block& b = st.block;
  const int dims = st.spec.dimensions();
  const index_t nx = b.global[0], ny = b.global[1], nz = dims == 3 ? b.global[2] : 1;
  const index_t n_along = along_y ? ny : nx, n_across = along_y ? nx : ny;
  const index_t mid[2] = {(n_across - 1) / 2, n_across / 2}, mid_z[2] = {(nz - 1) / 2, nz / 2};
  const std::size_t corners = dims == 3 ? 4 : 2, n = static_cast<std::size_t>(n_along);
  std::vector<double> slots(corners * n, 0.0);
  const double share = 1.0 / (static_cast<double>(corners) * st.spec.physics.velocity);
  for (index_t k = 0; k < b.extent[2]; ++k)
    for (index_t j = 0; j < b.extent[1]; ++j)
      for (index_t i = 0; i < b.extent[0]; ++i) {
        const index_t x = b.offset[0] + i, y = b.offset[1] + j, z = b.offset[2] + k;
        const index_t across = along_y ? x : y, at = along_y ? y : x;
        const auto cell = static_cast<std::size_t>((k * b.extent[1] + j) * b.extent[0] + i);
        const double u = st.velocity[cell * static_cast<std::size_t>(dims) + static_cast<std::size_t>(comp)];
        for (std::size_t a = 0; a < 2; ++a)
          for (std::size_t c = 0; c < corners / 2; ++c)
            if (across == mid[a] && (dims == 2 || z == mid_z[c]))
              slots[(a * (corners / 2) + c) * n + static_cast<std::size_t>(at)] = share * u;
      }
  st.comm.sum(slots);
  s = {0.0};
  v = {wall_lo};
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0.0;
    for (std::size_t c = 0; c < corners; ++c) sum += slots[c * n + k];
    s.push_back((double(k) + 0.5) / static_cast<double>(n));
    v.push_back(sum);
  }
  s.push_back(1.0);
  v.push_back(wall_hi);
}

/// Ghia et al. (1982) Table II, Re = 400, v at x = 0.9063 reads -0.23827: a misprint (the profile is
/// smooth there and every later solution, e.g. Erturk et al. 2005, gives about -0.387), so that point
/// is shown but not counted.
bool erratum(const Source& src, double re, bool v_line, double coord) {
  return src.dims == 2 && v_line && std::fabs(re - 400.0) < 1e-9 && std::fabs(coord - 0.9063) < 1e-6;
}

void compare(const Source& src, Profile& p, const std::vector<double>& s, const std::vector<double>& v,
             double re, bool v_line) {
  for (std::size_t k = 0; k < p.coord.size(); ++k) {
    p.eddy.push_back(interpolate(s, v, p.coord[k]));
    p.excluded.push_back(erratum(src, re, v_line, p.coord[k]));
    if (p.excluded.back()) continue;
    const double e = std::fabs(p.eddy.back() - p.value[k]);
    if (e > p.max_abs_error) p.max_abs_error = e, p.coord_of_max = p.coord[k];
  }
}

/// The table `eddy run` prints.
std::string format(const Reference& g) {
  std::ostringstream o;
  char buf[160];
  o << "Centreline velocities vs " << g.source.authors << ", Re = " << g.reynolds << ":\n";
  for (const Profile* p : {&g.u_vs_y, &g.v_vs_x}) {
    std::snprintf(buf, sizeof buf, "\n    coord    %-9s  eddy       diff\n", g.source.tag);
    o << "  " << p->name << buf;
    for (std::size_t k = 0; k < p->coord.size(); ++k) {
      std::snprintf(buf, sizeof buf, "    %.4f  %+.5f  %+.5f  %+.5f%s\n", p->coord[k], p->value[k],
                    p->eddy[k], p->eddy[k] - p->value[k],
                    p->excluded[k] ? "  (misprint in Ghia's table: not counted)" : "");
      o << buf;
    }
  }
  std::snprintf(buf, sizeof buf,
                "  max |u - u_%s| = %.4f U (at y = %.4f); max |v - v_%s| = %.4f U (at x = %.4f)",
                g.source.tag, g.u_vs_y.max_abs_error, g.u_vs_y.coord_of_max, g.source.tag,
                g.v_vs_x.max_abs_error, g.v_vs_x.coord_of_max);
  o << buf;
  return o.str();
}

class CavityValidation : public app::Validation {
 public:
  explicit CavityValidation(const Source& src) : src_(src) {}

  void check(const config::RunSpec& spec) const override {
    if (spec.dimensions() != src_.dims)
      throw InputError(log::cat("validation.reference: ", src_.key, " compares the centrelines of the ",
                                src_.dims == 2 ? "2D cavity" : "cube", "; domain.cells has ",
                                spec.dimensions(), " entries (use ",
                                src_.dims == 2 ? "albensoeder2005 in 3D" : "ghia1982 in 2D", ")"));
    read(src_, table_file(src_, spec), spec.physics.reynolds);
  }

  std::vector<app::ValidationResult> finish(const app::FinalState& st, double tolerance) const override {
    Reference g = read(src_, table_file(src_, st.spec), st.spec.physics.reynolds);
    std::vector<double> s, v;
    centreline(st, 0, true, 0.0, 1.0, s, v);  // u(y): the lid moves at U along x at y = 1
    compare(src_, g.u_vs_y, s, v, g.reynolds, false);
    centreline(st, 1, false, 0.0, 0.0, s, v);  // v(x): walls at rest
    compare(src_, g.v_vs_x, s, v, g.reynolds, true);
    log::info(format(g));
    const double bound = tolerance > 0 ? tolerance : std::numeric_limits<double>::infinity();
    const std::string mid = src_.dims == 3 ? ", z = 0.5" : "";
    return {app::figure(src_.key, "u_max_error", g.u_vs_y.max_abs_error,
                        std::string("max |u - u_") + src_.tag + "| / U along x = 0.5" + mid, bound),
            app::figure(src_.key, "v_max_error", g.v_vs_x.max_abs_error,
                        std::string("max |v - v_") + src_.tag + "| / U along y = 0.5" + mid, bound)};
  }

 private:
  Source src_;
};

}  // namespace

// The names literally: scripts/cmake/validations.cmake reads them from here for the schema.
void register_lid_driven_cavity(app::ValidationRegistry& registry) {
  static_assert(std::string_view(ghia.key) == "ghia1982" &&
                std::string_view(albensoeder.key) == "albensoeder2005");
  registry.add("ghia1982", "2D cavity centreline velocities against Ghia, Ghia & Shin (1982)",
               std::make_unique<CavityValidation>(ghia));
  registry.add("albensoeder2005",
               "cube (Re 1000) centreline velocities against Albensoeder & Kuhlmann (2005)",
               std::make_unique<CavityValidation>(albensoeder));
}

}  // namespace eddy::cases
