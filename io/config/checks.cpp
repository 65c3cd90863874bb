#include <algorithm>
#include <cctype>
#include <cmath>

#include "io/config/detail.hpp"

namespace eddy::config::detail {
namespace {

// ---------------------------------------------------------------- validation

bool satisfies(double x, const Rule& r) {
  return (r.lo_open ? x > r.lo : x >= r.lo) && (r.hi_open ? x < r.hi : x <= r.hi);
}

std::string describe(const Rule& r) {
  const bool lo = std::isfinite(r.lo), hi = std::isfinite(r.hi);
  if (lo && hi) {
    return std::string("in ") + (r.lo_open ? "(" : "[") + short_num(r.lo) + ", " + short_num(r.hi) +
           (r.hi_open ? ")" : "]");
  }
  if (lo) return (r.lo_open ? "> " : ">= ") + short_num(r.lo);
  if (hi) return (r.hi_open ? "< " : "<= ") + short_num(r.hi);
  return "finite";
}

void check(const std::string& path, const std::string& v, const Rule& r, const Where& w) {
  if (!r.one_of.empty() && std::find(r.one_of.begin(), r.one_of.end(), v) == r.one_of.end()) {
    w.fail(path, "'" + v + "' is not one of " + join(r.one_of, ", "));
  }
}
void check(const std::string& path, double v, const Rule& r, const Where& w) {
  if (!std::isfinite(v) || !satisfies(v, r)) w.fail(path, "must be " + describe(r) + ", got " + short_num(v));
}
void check(const std::string& path, long v, const Rule& r, const Where& w) {
  if (!satisfies(static_cast<double>(v), r)) w.fail(path, "must be " + describe(r) + ", got " + fmt(v));
}
void check(const std::string&, bool, const Rule&, const Where&) {}
void check(const std::string& path, const Schedule& v, const Rule&, const Where& w) {
  if (v.steps < 0 || !(v.time >= 0) || !std::isfinite(v.time)) {
    w.fail(path, "must be >= 0 (" + expected(static_cast<const Schedule*>(nullptr), {}) + ")");
  }
}
void check(const std::string& path, const std::vector<double>& v, const Rule& r, const Where& w);
template <class T>
void check(const std::string& path, const std::vector<T>& v, const Rule& r, const Where& w);
template <class S, std::enable_if_t<is_entry<S>, int> = 0>
void check(const std::string& path, const S& entry, const Rule&, const Where& w) {
  S copy = entry;
  EntryKeys keys;
  visit(copy, keys);
  for (const auto& k : keys.keys)
    std::visit([&](auto* ref) { check(path + "." + k.first, *ref, k.second.second, w); }, k.second.first);
}
template <class T>
void check(const std::string& path, const std::vector<T>& v, const Rule& r, const Where& w) {
  if (v.size() == 1 && r.scalar_ok) return check(path, v[0], r, w);  // most likely written as a scalar
  for (std::size_t i = 0; i < v.size(); ++i) check(path + "[" + std::to_string(i) + "]", v[i], r, w);
}

void check(const std::string& path, const std::vector<double>& v, const Rule& r, const Where& w) {
  check<double>(path, v, r, w);
}

void check_name(const std::string& name, const Where& w) {
  const bool ok =
      !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
      });
  if (!ok) {
    w.fail("name", "'" + name +
                       "' is not a valid run name: it becomes a directory name, so use only letters, "
                       "digits, '_', '.' and '-'");
  }
}

/// numerics.lattice auto: D2Q9 in 2D, D3Q19 in 3D. Whether a lattice fits the domain, the lattice Mach
/// number and the relaxation time are the solver's rules, which the app applies after loading
/// (app/lbm_case.cpp, check_lbm_rules).
void resolve_lattice(RunSpec& s) {
  if (s.numerics.lattice == "auto") s.numerics.lattice = s.dimensions() == 2 ? "D2Q9" : "D3Q19";
}

void check_boundaries(RunSpec& s, const Where& w) {
  FaceCollector c;
  visit(s.boundaries, c);
  if (s.solver == "spectral") {  // the spectral solver is periodic in every direction
    for (auto& face : c.faces) *face.second = FaceSpec{"periodic", {}};
    return;
  }
  const std::size_t dims = static_cast<std::size_t>(s.dimensions());
  const auto key = [](const std::string& face, const char* leaf) {
    return "boundaries." + face + "." + leaf;
  };
  for (std::size_t axis = 0; axis < dims && 2 * axis + 1 < c.faces.size(); ++axis) {
    const auto& lo = c.faces[2 * axis];
    const auto& hi = c.faces[2 * axis + 1];
    const bool lo_periodic = lo.second->type == "periodic";
    if (lo_periodic != (hi.second->type == "periodic")) {
      const auto& yes = lo_periodic ? lo : hi;
      const auto& no = lo_periodic ? hi : lo;
      w.fail(key(yes.first, "type"), "'periodic' must be paired, but " + key(no.first, "type") + " is '" +
                                         no.second->type + "'; make both periodic or neither");
    }
  }
  for (std::size_t i = 0; i < 2 * dims && i < c.faces.size(); ++i) {
    const FaceSpec& f = *c.faces[i].second;
    if (f.type == "moving_wall" && f.velocity.size() != dims) {
      const std::string at = w.has(key(c.faces[i].first, "velocity")) ? key(c.faces[i].first, "velocity")
                                                                      : key(c.faces[i].first, "type");
      w.fail(at, "a moving_wall needs boundaries." + c.faces[i].first +
                     ".velocity with one entry per dimension (" + std::to_string(dims) + "), got " +
                     std::to_string(f.velocity.size()));
    }
  }
}

/// Open faces (velocity_inlet, pressure_outlet, outflow): LBM only, with the keys each needs.
void check_open_faces(RunSpec& s, const Where& w) {
  FaceCollector c;
  visit(s.boundaries, c);
  const std::size_t dims = static_cast<std::size_t>(s.dimensions());
  if (s.initial.type == "inflow" &&
      std::none_of(c.faces.begin(), c.faces.begin() + long(2 * dims),
                   [](const auto& f) { return f.second->type == "velocity_inlet"; }))
    w.fail("initial.type",
           "'inflow' starts from the velocity_inlet's profile, but no face is a velocity_inlet");
  for (std::size_t i = 0; i < c.faces.size(); ++i) {
    const FaceSpec& f = *c.faces[i].second;
    const std::string key = "boundaries." + c.faces[i].first;
    const bool open = f.type == "velocity_inlet" || f.type == "pressure_outlet" || f.type == "outflow";
    if (!open) continue;
    if (i >= 2 * dims) w.fail(key + ".type", "'" + f.type + "' on a face the 2D domain does not have");
    if (f.type == "velocity_inlet" && f.velocity.size() != dims)
      w.fail(w.has(key + ".velocity") ? key + ".velocity" : key + ".type",
             "a velocity_inlet needs " + key + ".velocity with one entry per dimension (" +
                 std::to_string(dims) + "), got " + std::to_string(f.velocity.size()));
  }
}

/// geometry: bodies with the keys their type needs (and none it does not use), coefficient scales.
void check_geometry(RunSpec& s, const Where& w) {
  GeometrySpec& g = s.geometry;
  const std::size_t dims = static_cast<std::size_t>(s.dimensions());
  if (s.solver != "lbm" && !g.bodies.empty())
    w.fail("geometry.bodies", "solid bodies are available with solver lbm only; remove them");
  for (std::size_t b = 0; b < g.bodies.size(); ++b) {
    const BodySpec& body = g.bodies[b];
    const std::string key = "geometry.bodies[" + std::to_string(b) + "]";
    const bool round = body.type == "cylinder" || body.type == "sphere";
    const auto need = [&](const char* leaf, bool wanted, bool given, const std::string& what) {
      if (wanted && !given) w.fail(key + "." + leaf, "a " + body.type + " needs " + what);
      if (!wanted && given) w.fail(key + "." + leaf, "is not a key of a " + body.type + "; remove it");
    };
    const std::string per_dim = "one entry per dimension (" + std::to_string(dims) + ")";
    need("center", round, !body.center.empty(), "center: " + per_dim);
    if (round && body.center.size() != dims) w.fail(key + ".center", "needs " + per_dim);
    need("radius", round, body.radius > 0, "radius > 0");
    if (!body.axis.empty() && (body.type != "cylinder" || dims != 3))
      w.fail(key + ".axis", "only a cylinder in 3D has an axis (a 2D cylinder is a disc along z)");
    if (!body.axis.empty() && body.axis.size() != 3) w.fail(key + ".axis", "needs 3 entries");
    if (body.length > 0 && (body.type != "cylinder" || dims != 3))
      w.fail(key + ".length", "only a cylinder in 3D has a length; remove it");
    const bool from_file = body.type == "stl" || body.type == "mask";
    need("file", from_file, !body.file.empty(),
         "file: the path of the " + std::string(body.type == "stl" ? "STL surface" : "HDF5 mask"));
    need("translate", body.type == "stl", !body.translate.empty(), "translate: " + per_dim);
    if (body.type == "stl" && body.translate.size() != dims) w.fail(key + ".translate", "needs " + per_dim);
    if (body.type == "stl" && !(body.scale > 0))
      w.fail(key + ".scale", "must be > 0 (x = scale * x_file + translate)");
    if (body.type != "stl" && body.scale != 1.0)
      w.fail(key + ".scale", "is not a key of a " + body.type + "; remove it");
    if (body.type != "mask" && body.dataset != "solid")
      w.fail(key + ".dataset", "is not a key of a " + body.type + "; remove it");
    need("lo", body.type == "box", !body.lo.empty(), "lo: " + per_dim);
    need("hi", body.type == "box", !body.hi.empty(), "hi: " + per_dim);
    if (body.type == "box") {
      if (body.lo.size() != dims) w.fail(key + ".lo", "needs " + per_dim);
      if (body.hi.size() != dims) w.fail(key + ".hi", "needs " + per_dim);
      for (std::size_t d = 0; d < dims; ++d)
        if (!(body.lo[d] < body.hi[d]))
          w.fail(key + ".hi", "every entry must be above its lo (entry " + std::to_string(d) + ")");
    }
  }
  if (g.reference_velocity > 0) {
    if (!(g.reference_length > 0))
      w.fail("geometry.reference_length", "the force coefficients need a reference length > 0 [m]");
    if (dims == 3 && !(g.reference_area > 0))
      w.fail("geometry.reference_area", "the force coefficients in 3D need a reference area > 0 [m^2]");
  }
}

void check_forcing(const RunSpec& s, const Where& w) {
  const ForcingSpec& f = s.physics.forcing;
  if (f.type == "none") return;
  if (s.solver != "spectral") {
    w.fail("physics.forcing.type",
           "'" + f.type +
               "' forcing is available with solver spectral only; use none (the LBM takes a "
               "uniform physics.body_force)");
    return;
  }
  if (f.type == "band_limited") {
    if (f.band.size() != 2 || !(f.band[0] < f.band[1])) {
      w.fail("physics.forcing.band",
             "needs two wave numbers [k_a, k_b] [1/m] with k_a < k_b, e.g. [0.5, 2.5]");
    }
  }
}

// ---------------------------------------------------------------- output: fields, probes and spectra

/// The fields each solver writes, and in which dimensions (a bit per dimension: D2, D3): the field files,
/// the probes and the slices may name a field where its entry has the run's solver and dimension. A field
/// a solver gains is one entry changed here (and the solver's Model writing it).
constexpr unsigned D2 = 1u, D3 = 2u;
struct SolverField {
  const char* name;
  unsigned lbm, spectral;
};
constexpr SolverField solver_field_table[] = {
    {"velocity", D2 | D3, D2 | D3},  {"density", D2 | D3, 0}, {"pressure", D2 | D3, 0},
    {"vorticity", D2 | D3, D2 | D3}, {"q_criterion", D3, D3},
};

/// The dimensions of solver s.solver that write field f (0: none).
unsigned field_dimensions(const RunSpec& s, const SolverField& f) {
  return s.solver == "lbm" ? f.lbm : f.spectral;
}
unsigned run_dimension(const RunSpec& s) { return s.domain.cells.size() == 2 ? D2 : D3; }

/// The fields solver s.solver writes in this run's dimension, which the field files, probes and slices may
/// name.
std::vector<std::string> solver_fields(const RunSpec& s) {
  std::vector<std::string> out;
  for (const SolverField& f : solver_field_table)
    if (field_dimensions(s, f) & run_dimension(s)) out.emplace_back(f.name);
  return out;
}

/// Why solver s.solver does not write `name` in this run: " in 2D (3D only)" where it writes it in the
/// other dimension, else "".
std::string other_dimension(const RunSpec& s, const std::string& name) {
  for (const SolverField& f : solver_field_table)
    if (name == f.name && field_dimensions(s, f) != 0)
      return field_dimensions(s, f) == D3 ? " in 2D (3D only)" : " in 3D (2D only)";
  return "";
}

/// Every entry of the list `key` is a field of the solver, and none is listed twice.
void check_field_names(const RunSpec& s, const std::string& key, const std::vector<std::string>& names,
                       const std::string& otherwise, const Where& w) {
  const std::vector<std::string> available = solver_fields(s);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string at = key + "[" + std::to_string(i) + "]";
    if (std::find(available.begin(), available.end(), names[i]) == available.end())
      w.fail(at, "'" + names[i] + "' is not a field of solver " + s.solver + other_dimension(s, names[i]) +
                     "; use " + join(available, ", ") + otherwise);
    if (std::find(names.begin(), names.begin() + long(i), names[i]) != names.begin() + long(i))
      w.fail(at, "'" + names[i] + "' is listed twice");
  }
}

/// output.fields.variables: fields the solver writes, each once (empty: all of them).
void check_field_variables(const RunSpec& s, const Where& w) {
  check_field_names(s, "output.fields.variables", s.output.fields.variables,
                    " (or leave output.fields.variables empty for all of them)", w);
}

/// output.probes: a schedule with points, each with one coordinate per dimension inside the domain
/// [0, L] along every axis, and fields the solver writes (once each); output.spectra of the LBM: a
/// periodic box, whose ranks hold whole x rows (the transforms' layout, spectral/spectrum.hpp).
void check_series_outputs(const RunSpec& s, const Where& w) {
  const ProbesSpec& p = s.output.probes;
  const std::size_t dims = s.domain.cells.size();
  const std::string example = dims == 2 ? "[[0.5, 0.5]]" : "[[0.5, 0.5, 0.5]]";
  if (p.every.enabled() && p.points.empty())
    w.fail(
        w.has("output.probes.points") ? "output.probes.points" : "output.probes.every",
        "the probes need at least one point: output.probes.points: " + example + " [m], inside the domain");
  if (!p.every.enabled() && !p.points.empty())
    w.fail(w.has("output.probes.every") ? "output.probes.every" : "output.probes.points",
           "the probes have points but no schedule (output.probes.every is 0, never); give it a step count "
           "(e.g. 10) or a time (e.g. 0.1t)");
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    const std::string key = "output.probes.points[" + std::to_string(i) + "]";
    const std::vector<double>& x = p.points[i];
    if (x.size() != dims)
      w.fail(key, "needs one coordinate per dimension (" + std::to_string(dims) + "), got " +
                      std::to_string(x.size()) + "; e.g. " + example.substr(1, example.size() - 2));
    for (std::size_t d = 0; d < dims; ++d)
      if (!(x[d] >= 0.0 && x[d] <= s.domain.length[d]))
        w.fail(key + "[" + std::to_string(d) + "]",
               std::string("the point is outside the domain: ") + "xyz"[d] + " = " + fmt(x[d]) +
                   " m, but the domain spans [0, " + short_num(s.domain.length[d]) + "] m along " + "xyz"[d]);
  }
  if (p.every.enabled() && p.fields.empty())
    w.fail("output.probes.fields", "needs at least one field, of " + join(solver_fields(s), ", "));
  check_field_names(s, "output.probes.fields", p.fields, "", w);
  if (s.output.spectra.every.enabled() && s.solver == "lbm") {
    const FaceSpec* lower[3] = {&s.boundaries.x_min, &s.boundaries.y_min, &s.boundaries.z_min};
    for (std::size_t a = 0; a < dims; ++a)
      if (lower[a]->type != "periodic")
        w.fail("output.spectra.every", std::string("the LBM writes energy spectra of a periodic box, but ") +
                                           "boundaries." + "xyz"[a] + "_min.type is " + lower[a]->type +
                                           "; make every direction periodic, or remove output.spectra");
    if (!s.parallel.ranks.empty() && s.parallel.ranks[0] != 1)
      w.fail(
          "parallel.ranks",
          "output.spectra transforms the LBM velocity where the ranks hold it, in whole x rows: give [1, " +
              std::string(dims == 3 ? "P1, P2]" : "P]") +
              " (or leave parallel.ranks out), or remove output.spectra");
  }
}

/// output.statistics: a schedule, fields the solver accumulates (once each), directions to average over
/// that the run has and that are periodic (unless allow_nonperiodic), and a start before the end.
void check_statistics(const RunSpec& s, const Where& w) {
  const StatisticsSpec& st = s.output.statistics;
  const std::string key = "output.statistics";
  const bool lbm = s.solver == "lbm";
  if (!st.every.enabled()) {
    // Keys set to other than their defaults (the resolved YAML of any run names them all).
    const StatisticsSpec none{};
    const std::pair<const char*, bool> set[] = {{"start", st.start.enabled()},
                                                {"fields", st.fields != none.fields},
                                                {"average_over", !st.average_over.empty()},
                                                {"allow_nonperiodic", st.allow_nonperiodic},
                                                {"per_cell", !st.per_cell},
                                                {"write_every", st.write_every.enabled()}};
    for (const auto& [k, given] : set)
      if (given)
        w.fail(key + "." + k,
               "the statistics have no schedule (output.statistics.every is 0, never); give it a step count "
               "(e.g. 10) or a time (e.g. 0.1t)");
    return;
  }
  const std::vector<std::string> available =
      lbm ? std::vector<std::string>{"velocity", "pressure", "density", "reynolds_stress"}
          : std::vector<std::string>{"velocity", "reynolds_stress", "vorticity"};
  if (st.fields.empty()) w.fail(key + ".fields", "needs at least one field, of " + join(available, ", "));
  for (std::size_t i = 0; i < st.fields.size(); ++i) {
    const std::string at = key + ".fields[" + std::to_string(i) + "]";
    if (std::find(available.begin(), available.end(), st.fields[i]) == available.end())
      w.fail(at, "'" + st.fields[i] + "' is not accumulated by solver " + s.solver + "; use " +
                     join(available, ", "));
    if (std::find(st.fields.begin(), st.fields.begin() + long(i), st.fields[i]) !=
        st.fields.begin() + long(i))
      w.fail(at, "'" + st.fields[i] + "' is listed twice");
  }
  const std::size_t dims = s.domain.cells.size();
  const FaceSpec* lower[3] = {&s.boundaries.x_min, &s.boundaries.y_min, &s.boundaries.z_min};
  for (std::size_t i = 0; i < st.average_over.size(); ++i) {
    const std::string at = key + ".average_over[" + std::to_string(i) + "]", axis = st.average_over[i];
    const auto a = static_cast<std::size_t>(axis[0] - 'x');
    if (a >= dims)
      w.fail(at, "'" + axis + "' is not a direction of a " + std::to_string(dims) + "D run; use x or y");
    if (std::find(st.average_over.begin(), st.average_over.begin() + long(i), axis) !=
        st.average_over.begin() + long(i))
      w.fail(at, "'" + axis + "' is listed twice");
    if (!lbm || st.allow_nonperiodic || lower[a]->type == "periodic") continue;
    w.fail(at, "'" + axis + "' is not periodic (boundaries." + axis + "_min.type is " + lower[a]->type +
                   "): an average across it mixes the flow near the walls with the rest; average over "
                   "homogeneous (periodic) directions, or set output.statistics.allow_nonperiodic: true");
  }
  if (st.average_over.size() == dims && dims > 0)
    w.fail(key + ".average_over", "names every direction; leave one out for a profile along it");
  if (!st.per_cell && !lbm)
    w.fail(key + ".per_cell",
           "false (profiles alone, summed inside the step) is for the LBM solver; the spectral solver keeps "
           "per-cell sums: remove the key");
  if (!st.per_cell && st.average_over.empty())
    w.fail(key + ".per_cell",
           "false keeps the profiles alone, so output.statistics.average_over must name the directions to "
           "average over (e.g. [x, z])");
  if (s.run.end_time > 0 && st.start.time > 0 && st.start.time >= s.run.end_time)
    w.fail(key + ".start", "t = " + fmt(st.start.time) + " s is not before run.end_time = " +
                               fmt(s.run.end_time) + " s: no sample would be taken");
  if (s.run.steps > 0 && st.start.steps > 0 && st.start.steps > s.run.steps)
    w.fail(key + ".start", "step " + fmt(st.start.steps) + " is after run.steps = " + fmt(s.run.steps) +
                               ": no sample would be taken");
}

/// output.slices: planes of a 3D run, each with a schedule, a position inside the domain along its axis
/// and fields the solver writes; no two on the same cell layer of one axis.
void check_slices(const RunSpec& s, const Where& w) {
  const std::vector<SliceSpec>& slices = s.output.slices;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const SliceSpec& c = slices[i];
    const std::string key = "output.slices[" + std::to_string(i) + "]";
    const auto a = static_cast<std::size_t>(slice_axis(c));
    if (s.dimensions() != 3)
      w.fail(
          key + (w.has(key + ".axis") ? ".axis" : ""),
          "slices are planes of a 3D run; in 2D the field files hold the whole plane (output.fields.every) "
          "and a slice along x or y would be a line, which eddy does not write; remove output.slices");
    if (!c.every.enabled())
      w.fail(w.has(key + ".every") ? key + ".every" : key,
             "a slice needs a schedule: every: a step count (e.g. 100) or a time (e.g. 0.1t)");
    if (!w.has(key + ".position"))
      w.fail(key, std::string("a slice needs a position [m] along its axis, in [0, ") +
                      short_num(s.domain.length[a]) +
                      "] (e.g. position: " + short_num(0.5 * s.domain.length[a]) + ")");
    if (!(c.position >= 0.0 && c.position <= s.domain.length[a]))
      w.fail(key + ".position", "the plane is outside the domain: " + c.axis + " = " + fmt(c.position) +
                                    " m, but the domain spans [0, " + short_num(s.domain.length[a]) +
                                    "] m along " + c.axis);
    if (c.fields.empty())
      w.fail(key + ".fields", "needs at least one field, of " + join(solver_fields(s), ", "));
    check_field_names(s, key + ".fields", c.fields, "", w);
    for (std::size_t j = 0; j < i; ++j)
      if (slices[j].axis == c.axis && slice_layer(s, slices[j]) == slice_layer(s, c))
        w.fail(key + ".position", "is in the same cell layer as output.slices[" + std::to_string(j) +
                                      "] (axis " + c.axis + ", layer " + std::to_string(slice_layer(s, c)) +
                                      " of " + std::to_string(s.domain.cells[a]) +
                                      "); list each plane once, with all its fields in one slice's fields");
  }
}

}  // namespace

void validate(RunSpec& s, const std::vector<Field>& fields, const Where& w) {
  for (const Field& f : fields) std::visit([&](auto* ref) { check(f.path, *ref, f.rule, w); }, f.ref);
  check_name(s.name, w);

  const std::size_t dims = s.domain.cells.size();
  if (dims != 2 && dims != 3) {
    w.fail("domain.cells", "needs 2 or 3 entries ([nx, ny] or [nx, ny, nz]), got " + std::to_string(dims));
  }
  if (s.solver == "lbm") {
    for (std::size_t i = 0; i < dims; ++i) {
      if (s.domain.cells[i] < 2) {
        w.fail("domain.cells[" + std::to_string(i) + "]",
               "lbm needs at least 2 cells per direction, got " + fmt(s.domain.cells[i]));
      }
    }
  }
  std::vector<double>& length = s.domain.length;
  if (length.size() == 1) length.assign(dims, length[0]);
  if (length.size() != dims) {
    w.fail("domain.length", "needs one value or one per dimension (" + std::to_string(dims) + "), got " +
                                std::to_string(length.size()));
  }

  if (!s.physics.body_force.empty() && s.physics.body_force.size() != dims) {
    w.fail("physics.body_force", "needs one entry per dimension (" + std::to_string(dims) + "), got " +
                                     std::to_string(s.physics.body_force.size()));
  }
  if (s.solver != "lbm") {
    for (double g : s.physics.body_force)
      if (g != 0.0) w.fail("physics.body_force", "is only available with solver lbm; remove it");
    if (s.numerics.les.model != "none")
      w.fail("numerics.les.model",
             "'" + s.numerics.les.model + "' is only available with solver lbm; use none");
    if (s.numerics.storage != "populations")
      w.fail("numerics.storage",
             "'" + s.numerics.storage + "' is only available with solver lbm; use populations");
  }
  if (s.solver == "lbm") {
    resolve_lattice(s);
  } else if (s.numerics.precision == "fp32/fp16") {
    w.fail("numerics.precision", "'fp32/fp16' is only available with solver lbm; use fp64 or fp32");
  }
  check_boundaries(s, w);
  if (s.solver == "lbm") check_open_faces(s, w);
  if (s.solver != "lbm" && (s.initial.type == "inflow" || s.initial.type == "channel"))
    w.fail("initial.type", "'" + s.initial.type + "' is available with solver lbm only");
  if (s.solver == "lbm" && s.initial.type == "channel" &&
      (s.dimensions() != 3 || s.boundaries.y_min.type != "wall" || s.boundaries.y_max.type != "wall" ||
       s.boundaries.x_min.type != "periodic" || s.boundaries.z_min.type != "periodic"))
    w.fail(
        "initial.type",
        "'channel' is the plane channel: 3D, walls at y (boundaries.y_min and y_max type wall) and periodic "
        "x and z; this run has " +
            std::to_string(s.dimensions()) + "D, y_min " + s.boundaries.y_min.type + ", y_max " +
            s.boundaries.y_max.type + ", x_min " + s.boundaries.x_min.type +
            (s.dimensions() == 3 ? ", z_min " + s.boundaries.z_min.type : std::string()));
  check_geometry(s, w);
  check_forcing(s, w);
  check_field_variables(s, w);
  check_series_outputs(s, w);
  check_statistics(s, w);
  check_slices(s, w);

  if (!(s.run.end_time > 0) && s.run.steps <= 0) {
    w.fail(w.has("run.end_time") ? "run.end_time" : "run.steps",
           "neither run.end_time nor run.steps is > 0; set one of them to say when the run stops");
  }
#ifndef EDDY_HDF5_PARALLEL
  if (s.output.writer == "collective")
    w.fail("output.writer",
           "'collective' needs a parallel HDF5 (MPI-IO) and this build's HDF5 is serial; use auto, gather or "
           "per_rank");
#endif
  if (!s.parallel.ranks.empty() && s.parallel.ranks.size() != dims) {
    w.fail("parallel.ranks", "needs one entry per dimension (" + std::to_string(dims) +
                                 ") or none (automatic), got " + std::to_string(s.parallel.ranks.size()));
  }
}

}  // namespace eddy::config::detail
