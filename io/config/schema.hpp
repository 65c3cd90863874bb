#pragma once
/// The config schema, written once: every key of every RunSpec section, in order, with the rule its value
/// must meet. Loading, unknown-key detection, validation, to_yaml and --set all walk these lists
/// (io/config/load.cpp, checks.cpp, config.cpp). Adding a config key = a field in run_spec.hpp + one line
/// here.
#include <initializer_list>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "eddy_validation_names.hpp"  // generated: scripts/cmake/validations.cmake
#include "io/config/run_spec.hpp"

namespace eddy::config {

/// What one value must satisfy; checked after loading. For a list the bounds apply to every entry.
struct Rule {
  std::vector<std::string> one_of{};                     ///< allowed strings; empty = any string
  double lo = -std::numeric_limits<double>::infinity();  ///< lower bound
  double hi = std::numeric_limits<double>::infinity();   ///< upper bound
  bool lo_open = false;                                  ///< lower bound excluded
  bool hi_open = false;                                  ///< upper bound excluded
  bool scalar_ok = false;                                ///< a list key that also takes one scalar

  /// The same rule, for a list key that also accepts a single scalar.
  Rule or_scalar() const {
    Rule r = *this;
    r.scalar_ok = true;
    return r;
  }
};

/// The value must be one of these strings.
inline Rule one_of(const std::vector<std::string>& values) {
  Rule r;
  r.one_of = values;
  return r;
}
inline Rule one_of(std::initializer_list<const char*> values) {
  Rule r;
  for (const char* v : values) r.one_of.emplace_back(v);
  return r;
}
/// value >= lo.
inline Rule at_least(double lo) {
  Rule r;
  r.lo = lo;
  return r;
}
/// value > lo.
inline Rule above(double lo) {
  Rule r;
  r.lo = lo;
  r.lo_open = true;
  return r;
}
/// lo < value < hi (open) or lo < value <= hi (hi_open = false).
inline Rule between(double lo, double hi, bool hi_open) {
  Rule r;
  r.lo = lo;
  r.hi = hi;
  r.lo_open = true;
  r.hi_open = hi_open;
  return r;
}

// One visit() per section. A visitor provides field(key, value, rule) for leaves and section(key, struct)
// for nested sections; keys are the C++ field names.

template <class V>
void visit(FaceSpec& s, V& v) {
  v.field("type", s.type,
          one_of({"wall", "moving_wall", "periodic", "velocity_inlet", "pressure_outlet", "outflow"}));
  v.field("velocity", s.velocity);
  v.field("profile", s.profile, one_of({"uniform", "parabolic"}));
  v.field("ramp_time", s.ramp_time, at_least(0));
  v.field("pressure", s.pressure);
}

/// The keys of one body (a list entry of geometry.bodies, loaded by load.cpp's parse for BodySpec).
/// A new body type = its name here + the keys it needs + its constructor in app/geometry_case.cpp.
template <class V>
void visit(BodySpec& s, V& v) {
  v.field("type", s.type, one_of({"cylinder", "sphere", "box", "stl", "mask"}));
  v.field("center", s.center);
  v.field("radius", s.radius, at_least(0));
  v.field("axis", s.axis);
  v.field("length", s.length, at_least(0));
  v.field("lo", s.lo);
  v.field("hi", s.hi);
  v.field("file", s.file);
  v.field("scale", s.scale, at_least(0));
  v.field("translate", s.translate);
  v.field("dataset", s.dataset);
}

template <class V>
void visit(GeometrySpec& s, V& v) {
  v.field("bodies", s.bodies);
  v.field("wall", s.wall, one_of({"bouzidi", "halfway"}));
  v.field("reference_velocity", s.reference_velocity, at_least(0));
  v.field("reference_length", s.reference_length, at_least(0));
  v.field("reference_area", s.reference_area, at_least(0));
}

template <class V>
void visit(DomainSpec& s, V& v) {
  v.field("cells", s.cells, at_least(1));
  v.field("length", s.length, above(0).or_scalar());
}

template <class V>
void visit(ForcingSpec& s, V& v) {
  v.field("type", s.type, one_of({"none", "kolmogorov", "band_limited"}));
  v.field("amplitude", s.amplitude, above(0));
  v.field("wavenumber", s.wavenumber, above(0));
  v.field("injection_rate", s.injection_rate, above(0));
  v.field("band", s.band, at_least(0));
}

template <class V>
void visit(PhysicsSpec& s, V& v) {
  v.field("reynolds", s.reynolds, above(0));
  v.field("velocity", s.velocity, above(0));
  v.field("reference_length", s.reference_length, at_least(0));
  v.field("density", s.density, above(0));
  v.field("drag", s.drag, at_least(0));
  v.section("forcing", s.forcing);
  v.field("body_force", s.body_force);
}

template <class V>
void visit(LesSpec& s, V& v) {
  v.field("model", s.model, one_of({"none", "smagorinsky"}));
  v.field("constant", s.constant, above(0));
}

template <class V>
void visit(NumericsSpec& s, V& v) {
  v.field("precision", s.precision, one_of({"fp64", "fp32", "fp32/fp16"}));
  v.field("lattice", s.lattice, one_of({"auto", "D2Q9", "D3Q19", "D3Q27"}));
  v.field("collision", s.collision, one_of({"bgk", "trt", "regularized", "kbc"}));
  v.field("storage", s.storage, one_of({"populations", "moments"}));
  v.field("lattice_velocity", s.lattice_velocity, between(0, 1, true));
  v.field("max_mach", s.max_mach, between(0, 1, false));
  v.field("trt_magic", s.trt_magic, above(0));
  v.field("max_first_cell_yplus", s.max_first_cell_yplus, at_least(0));
  v.section("les", s.les);
  v.field("time_stepper", s.time_stepper, one_of({"rk3", "rk4"}));
  v.field("dt", s.dt, at_least(0));
  v.field("cfl", s.cfl, above(0));
  v.field("max_cfl", s.max_cfl, at_least(0));
  v.field("dealiasing", s.dealiasing, one_of({"two_thirds", "phase_shift"}));
  v.field("hyperviscosity", s.hyperviscosity, at_least(0));
  v.field("hyperviscosity_order", s.hyperviscosity_order, at_least(2));
}

template <class V>
void visit(BoundarySpec& s, V& v) {
  v.section("x_min", s.x_min);
  v.section("x_max", s.x_max);
  v.section("y_min", s.y_min);
  v.section("y_max", s.y_max);
  v.section("z_min", s.z_min);
  v.section("z_max", s.z_max);
}

template <class V>
void visit(InitialSpec& s, V& v) {
  v.field("type", s.type, one_of({"rest", "taylor_green", "random_spectrum", "inflow", "channel"}));
  v.field("amplitude", s.amplitude, at_least(0));
  v.field("peak_wavenumber", s.peak_wavenumber, above(0));
  v.field("spectrum_shape", s.spectrum_shape, at_least(0));
  v.field("seed", s.seed, at_least(0));
}

template <class V>
void visit(FieldOutputSpec& s, V& v) {
  v.field("every", s.every);
  v.field("at_end", s.at_end);
  v.field("variables", s.variables, one_of({"velocity", "vorticity", "pressure", "density", "q_criterion"}));
  v.field("precision", s.precision, one_of({"fp64", "fp32"}));
}

template <class V>
void visit(DiagnosticsSpec& s, V& v) {
  v.field("every", s.every);
}

template <class V>
void visit(CheckpointSpec& s, V& v) {
  v.field("every", s.every);
  v.field("keep", s.keep, at_least(1));
}

template <class V>
void visit(ProbesSpec& s, V& v) {
  v.field("every", s.every);
  v.field("points", s.points);
  v.field("fields", s.fields, one_of({"velocity", "pressure", "density", "vorticity", "q_criterion"}));
}

template <class V>
void visit(SpectraSpec& s, V& v) {
  v.field("every", s.every);
}

/// The keys of one slice (a list entry of output.slices, loaded like a body).
template <class V>
void visit(SliceSpec& s, V& v) {
  v.field("axis", s.axis, one_of({"x", "y", "z"}));
  v.field("position", s.position);
  v.field("every", s.every);
  v.field("fields", s.fields, one_of({"velocity", "pressure", "density", "vorticity", "q_criterion"}));
}

template <class V>
void visit(StatisticsSpec& s, V& v) {
  v.field("every", s.every);
  v.field("start", s.start);
  v.field("fields", s.fields, one_of({"velocity", "pressure", "density", "reynolds_stress", "vorticity"}));
  v.field("average_over", s.average_over, one_of({"x", "y", "z"}));
  v.field("allow_nonperiodic", s.allow_nonperiodic);
  v.field("per_cell", s.per_cell);
  v.field("write_every", s.write_every);
}

template <class V>
void visit(OutputSpec& s, V& v) {
  v.field("dir", s.dir);
  v.field("writer", s.writer, one_of({"auto", "collective", "gather", "per_rank"}));
  v.section("fields", s.fields);
  v.section("diagnostics", s.diagnostics);
  v.section("checkpoint", s.checkpoint);
  v.section("probes", s.probes);
  v.section("spectra", s.spectra);
  v.section("statistics", s.statistics);
  v.field("slices", s.slices);
}

template <class V>
void visit(SteadySpec& s, V& v) {
  v.field("tolerance", s.tolerance, at_least(0));
  v.field("check_every", s.check_every, at_least(1));
}

template <class V>
void visit(RunControlSpec& s, V& v) {
  v.field("end_time", s.end_time, at_least(0));
  v.field("steps", s.steps, at_least(0));
  v.section("steady", s.steady);
  v.field("max_wall_time", s.max_wall_time, at_least(0));
  v.field("check_every", s.check_every, at_least(1));
  v.field("stop_check_every", s.stop_check_every, at_least(1));
}

template <class V>
void visit(ParallelSpec& s, V& v) {
  v.field("comm", s.comm, one_of({"mpi", "mpi-gpu", "nccl", "peer", "auto"}));
  v.field("ranks", s.ranks, at_least(1));
  v.field("overlap", s.overlap);
  v.field("autotune", s.autotune);
}

template <class V>
void visit(ValidationSpec& s, V& v) {
  // The cases' validations, by name (generated from cases/*/validation.cpp).
  v.field("reference", s.reference, one_of(validation_references()));
  v.field("file", s.file);
  v.field("tolerance", s.tolerance, at_least(0));
}

template <class V>
void visit(OptimizeSpec& s, V& v) {
  v.field("spinup_steps", s.spinup_steps, at_least(0));
  v.field("horizon_steps", s.horizon_steps, at_least(1));
  v.field("norm_ratio", s.norm_ratio, above(0));
  v.field("method", s.method, one_of({"adam", "gradient"}));
  v.field("learning_rate", s.learning_rate, above(0));
  v.field("iterations", s.iterations, at_least(0));
  v.field("beta1", s.beta1, between(0, 1, true));
  v.field("beta2", s.beta2, between(0, 1, true));
  v.field("epsilon", s.epsilon, above(0));
  v.field("checkpoints", s.checkpoints, at_least(0));
  v.field("compare_storage", s.compare_storage);
  v.field("seed", s.seed, at_least(0));
}

template <class V>
void visit(RunSpec& s, V& v) {
  v.field("name", s.name);
  v.field("solver", s.solver, one_of({"lbm", "spectral"}));
  v.section("domain", s.domain);
  v.section("physics", s.physics);
  v.section("numerics", s.numerics);
  v.section("boundaries", s.boundaries);
  v.section("geometry", s.geometry);
  v.section("initial", s.initial);
  v.section("output", s.output);
  v.section("run", s.run);
  v.section("parallel", s.parallel);
  v.section("validation", s.validation);
  v.section("optimize", s.optimize);
}

/// A pointer to one leaf value of a RunSpec.
using FieldRef = std::variant<std::string*, double*, long*, bool*, std::vector<long>*, std::vector<double>*,
                              Schedule*, std::vector<BodySpec>*, std::vector<std::string>*,
                              std::vector<std::vector<double>>*, std::vector<SliceSpec>*>;

/// One key of the schema: full dotted path ("numerics.precision"), where its value lives, and its rule.
struct Field {
  std::string path;
  FieldRef ref;
  Rule rule;
};

/// Every key of the schema as a flat list in schema order, pointing into `spec`.
std::vector<Field> fields(RunSpec& spec);

}  // namespace eddy::config
