// `eddy optimize`: the optimal perturbation of the 2D spectral solver by its discrete adjoint.
//
// The base state omega_0 is the configured random spectrum after optimize.spinup_steps steps; the reference
// final state w_T^ref is omega_0 after optimize.horizon_steps = T more. The control is a perturbation d of
// omega_0 inside the 2/3 mask with RMS norm ||d|| <= r = norm_ratio ||omega_0||; the loss is
// J(d) = <(w_T(omega_0 + d) - w_T^ref)^2>, the mean square difference of the final vorticities. Each
// iteration takes J and dJ/d by one forward and one reverse sweep (spectral/adjoint.hpp, binomial
// checkpointing), then an Adam step (Kingma & Ba 2015) on the physical values of d, of RMS size about
// learning_rate * r, followed by the projection onto the constraint set (2/3 truncation, then scaling back
// onto the ball of radius r: the exact Euclidean projection onto the intersection, since the ball is centred
// in the subspace).
#include "app/optimize.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/output.hpp"
#include "app/spectral_case.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/hdf5/diagnostics_csv.hpp"
#include "io/hdf5/xdmf.hpp"
#include "parallel/transpose.hpp"
#include "spectral/adjoint.hpp"
#include "spectral/revolve.hpp"

namespace eddy::app {
using log::cat;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double mib(std::size_t b) { return double(b) / 1048576.0; }

using Field = spectral::Adjoint2d::Field;

/// What eddy optimize differentiates: the 2D spectral solver from a random spectrum, unforced, fixed dt.
void check_optimizable(const config::RunSpec& spec) {
  if (spec.solver != "spectral" || spec.dimensions() != 2)
    throw InputError(
        "solver / domain.cells: eddy optimize differentiates the 2D spectral solver (solver: spectral, two "
        "domain.cells entries)");
  if (spec.initial.type != "random_spectrum")
    throw InputError("initial.type: eddy optimize starts from random_spectrum, not '" + spec.initial.type +
                     "'");
  if (!(spec.numerics.dt > 0))
    throw InputError("numerics.dt: eddy optimize needs a fixed time step (numerics.dt > 0)");
  if (spec.physics.forcing.type != "none")
    throw InputError(
        "physics.forcing.type: eddy optimize differentiates unforced flow; the adjoint has no '" +
        spec.physics.forcing.type + "' forcing (use none)");
}

/// The optimisation's state: the adjoint solver, the base state omega_0, the reference final state, the
/// perturbation d and its constraint radius, and the work fields.
struct Problem {
  const config::RunSpec& spec;
  const config::OptimizeSpec& o;
  spectral::Adjoint2d& adj;
  double dt;
  long T;      ///< horizon steps
  int states;  ///< stored states of the binomial schedule
  Field base = adj.field(), ref = adj.field(), delta = adj.field(), w0 = adj.field(), grad = adj.field();
  double radius = 0.0;  ///< of the constraint ball, 1/s

  /// w0 = omega_0 + d.
  void perturbed_start() {
    adj.axpby(1.0, base.data(), 0.0, w0.data());
    adj.axpby(1.0, delta.data(), 1.0, w0.data());
  }

  /// d onto the constraint set: the 2/3 mask, then the ball of radius r; returns min(||d||, r).
  double project() {
    adj.mask(delta.data());
    const double n = std::sqrt(adj.dot(delta.data(), delta.data()));
    if (n > radius) adj.axpby(0.0, delta.data(), radius / n, delta.data());
    return std::min(n, radius);
  }
};

/// The base state (the initial spectrum after the spin-up), the unperturbed final state, and the radius.
void spin_up(Problem& p, double velocity) {
  const config::RunSpec& spec = p.spec;
  p.adj.random_spectrum(spectral::RandomSpectrum::make(velocity * velocity, spec.initial.peak_wavenumber,
                                                       spec.initial.spectrum_shape,
                                                       static_cast<std::uint64_t>(spec.initial.seed)),
                        p.base.data());
  const double t_spin = now();
  for (long k = 0; k < p.o.spinup_steps; ++k) p.adj.step(p.base.data(), p.dt);
  p.adj.axpby(1.0, p.base.data(), 0.0, p.ref.data());
  for (long k = 0; k < p.T; ++k) p.adj.step(p.ref.data(), p.dt);
  const double norm0 = std::sqrt(p.adj.dot(p.base.data(), p.base.data()));
  if (!std::isfinite(norm0) || !std::isfinite(p.adj.dot(p.ref.data(), p.ref.data())))
    throw NumericalError(
        "optimize: the spin-up or the reference horizon produced NaN/Inf (use a smaller numerics.dt)");
  p.radius = p.o.norm_ratio * norm0;
  log::info(cat("base state after ", p.o.spinup_steps + p.T, " steps (", now() - t_spin,
                " s): RMS vorticity ||omega_0|| = ", norm0, " 1/s, constraint radius r = ", p.radius,
                " 1/s"));
}

/// The initial perturbation: a random field of the initial spectrum (optimize.seed) on the sphere of
/// radius r.
void initial_perturbation(Problem& p) {
  p.adj.random_spectrum(
      spectral::RandomSpectrum::make(1.0, p.spec.initial.peak_wavenumber, p.spec.initial.spectrum_shape,
                                     static_cast<std::uint64_t>(p.o.seed)),
      p.delta.data());
  p.adj.axpby(0.0, p.delta.data(), 2 * p.radius / std::sqrt(p.adj.dot(p.delta.data(), p.delta.data())),
              p.delta.data());
  p.project();
}

/// The iterations, one row of optimize.csv each; returns the last gradient.
spectral::Gradient iterate(Problem& p, const RunOutput& out, const parallel::Comm& comm,
                           OptimizeResult& result) {
  spectral::Adjoint2d& adj = p.adj;
  const config::OptimizeSpec& o = p.o;
  const auto rs = static_cast<std::size_t>(adj.real_stride());
  backend::DeviceArray<double> x(rs), gp(rs), m(rs), v(rs);
  adj.to_physical(p.delta.data(), x.data());

  io::DiagnosticsCsv csv((out.dir() / "optimize.csv").string(),
                         {"loss", "gain", "gradient_norm", "perturbation_norm", "seconds"}, comm);
  log::info(
      "optimize.csv: step = iteration, time = wall seconds since the first iteration; gain = loss / r^2");
  std::vector<double> secs;
  spectral::Gradient last;
  double eps_abs = 0.0;
  const double r2 = p.radius * p.radius;
  const double t_start = now();
  for (long it = 0; it <= o.iterations; ++it) {
    p.perturbed_start();
    const double t0 = now();
    // Every iteration, the last (after the last update) included, takes J and dJ/dd: every row of
    // optimize.csv has the same columns, the last one's gradient norm telling how near a stationary
    // point the optimisation ended, at the price of one more reverse sweep.
    last = adj.gradient(p.w0.data(), p.ref.data(), p.T, p.dt, p.states, p.grad.data(), false);
    adj.mask(p.grad.data());  // the control lives inside the 2/3 mask
    const double gnorm = std::sqrt(adj.dot(p.grad.data(), p.grad.data()));
    backend::fence();
    const double s = now() - t0;
    secs.push_back(s);
    if (!std::isfinite(last.loss) || !std::isfinite(gnorm))
      throw NumericalError(cat("optimize: iteration ", it,
                               ": the loss or its gradient is NaN/Inf (use a smaller "
                               "numerics.dt or optimize.learning_rate)"));
    const double dnorm = std::sqrt(adj.dot(p.delta.data(), p.delta.data()));
    result.loss.push_back(last.loss);
    csv.row(it, now() - t_start, {last.loss, last.loss / r2, gnorm, dnorm, s});
    log::info(cat("iteration ", it, "  J = ", last.loss, "  J/r^2 = ", last.loss / r2, "  |dJ/dd| = ", gnorm,
                  "  |d|/r = ", dnorm / p.radius, "  ", 1e3 * s, " ms"));
    if (it == o.iterations) break;
    if (gnorm == 0) break;  // a stationary point (J = 0 at d = 0)
    const double step = o.learning_rate * p.radius;
    if (o.method == "adam") {
      if (it == 0) eps_abs = o.epsilon * gnorm;
      adj.to_physical(p.grad.data(), gp.data());
      adj.adam_ascent(x.data(), gp.data(), m.data(), v.data(), it + 1, step, o.beta1, o.beta2, eps_abs);
      adj.from_physical(x.data(), p.delta.data());
    } else {
      adj.axpby(step / gnorm, p.grad.data(), 1.0, p.delta.data());
    }
    p.project();
    adj.to_physical(p.delta.data(), x.data());
  }
  std::sort(secs.begin(), secs.end());  // one entry per iteration row, at least one
  result.seconds_per_iteration = secs[secs.size() / 2];
  result.peak_bytes = last.stats.peak_bytes;
  return last;
}

/// gradient_memory.csv: the binomial schedule against storing every step's state and stage values.
void gradient_memory(Problem& p, const spectral::Gradient& last, const RunOutput& out,
                     const parallel::Comm& comm, OptimizeResult& result) {
  io::DiagnosticsCsv mem((out.dir() / "gradient_memory.csv").string(),
                         {"forward_steps", "peak_bytes", "peak_mib", "device_used_mib"}, comm);
  log::info(cat("gradient (forward + backward) with ", last.stats.snapshots, " states held (", p.states,
                " stored + 1 working): median ", 1e3 * result.seconds_per_iteration, " ms per iteration, ",
                last.stats.forward_steps, " forward steps for T = ", p.T, ", peak device memory ",
                mib(result.peak_bytes), " MiB held by eddy (rank 0; the driver reports ",
                mib(last.stats.device_used), " MiB in use on the device)"));
  mem.row(p.states, result.seconds_per_iteration,
          {double(last.stats.forward_steps), double(result.peak_bytes), mib(result.peak_bytes),
           mib(last.stats.device_used)});
  if (p.o.compare_storage) {
    p.perturbed_start();
    const double t0 = now();
    const spectral::Gradient all =
        p.adj.gradient(p.w0.data(), p.ref.data(), p.T, p.dt, 0, p.grad.data(), false);
    backend::fence();
    const double s = now() - t0;
    result.peak_bytes_all = all.stats.peak_bytes;
    log::info(cat("gradient storing every step and stage: ", 1e3 * s, " ms, peak device memory ",
                  mib(all.stats.peak_bytes), " MiB held by eddy (rank 0; the driver reports ",
                  mib(all.stats.device_used), " MiB in use): the binomial schedule holds ",
                  100.0 * double(result.peak_bytes) / double(all.stats.peak_bytes), "% of it"));
    mem.row(0, s,
            {double(all.stats.forward_steps), double(all.stats.peak_bytes), mib(all.stats.peak_bytes),
             mib(all.stats.device_used)});
  }
  log::info(
      "gradient_memory.csv: step = states stored (0 = every step and stage), time = seconds per gradient");
}

/// The optimal perturbation (vorticity and velocity), the base state and the final difference it makes.
void write_optimum(Problem& p, const SpectralCase& c, RunOutput& out, const OptimizeResult& result) {
  spectral::Adjoint2d& adj = p.adj;
  std::vector<double> du, dw, bu, bw, fu, fw;
  adj.physical(p.delta.data(), du, dw);
  adj.physical(p.base.data(), bu, bw);
  p.perturbed_start();
  for (long k = 0; k < p.T; ++k) adj.step(p.w0.data(), p.dt);
  adj.axpby(-1.0, p.ref.data(), 1.0, p.w0.data());
  adj.physical(p.w0.data(), fu, fw);
  io::Block block = io::Block::whole(2, c.setup.cells);
  block.offset = c.slabs.mine().offset;
  block.extent = c.slabs.mine().extent;
  const FieldGrid grid{block, {c.dx[0], c.dx[1], c.dx[0]}};
  const long spinup = p.o.spinup_steps;
  out.write_fields(spinup, double(spinup) * p.dt, grid,
                   {{"vorticity", dw.data(), 0, "1/s"},
                    {"velocity", du.data(), 2, "m/s"},
                    {"base_vorticity", bw.data(), 0, "1/s"},
                    {"final_vorticity_difference", fw.data(), 0, "1/s"}});
  log::info(cat(
      "optimal perturbation: fields/", io::step_file_name(p.spec.name, spinup, ".h5"),
      " (vorticity, velocity: the perturbation at the start of the horizon; base_vorticity: omega_0; "
      "final_vorticity_difference: w_T - w_T^ref); J grew from ",
      result.loss.front(), " to ", result.loss.back(), " (x", result.loss.back() / result.loss.front(), ")"));
}

}  // namespace

OptimizeResult optimize(const config::RunSpec& spec, const RunOptions& opt, const parallel::Comm& comm) {
  check_optimizable(spec);
  const config::OptimizeSpec& o = spec.optimize;
  const SpectralCase c = make_spectral_case(spec, comm);
  const auto exchange = parallel::make_transpose_exchange(spec.parallel.comm, comm);
  spectral::Adjoint2d adj(c.setup, *exchange);  // InputError: fp32, phase_shift
  const long T = o.horizon_steps;
  const int states = static_cast<int>(
      std::min<long>(T, o.checkpoints > 0 ? o.checkpoints : long(std::ceil(std::log2(double(T)))) + 1));

  // One run per output directory, as for eddy run.
  return with_output_lock(RunOutput::directory(spec, opt), comm, [&] {
    RunOutput out(spec, opt, comm);
    OptimizeResult result;
    result.out_dir = out.dir().string();
    log::info(cat("optimize: 2D spectral ", spectral::stepper_names(c.setup.stepper), " fp64, ",
                  c.setup.cells[0], " x ", c.setup.cells[1], " points on ", comm.size(), " rank(s), nu = ",
                  c.setup.nu, " m^2/s, dt = ", spec.numerics.dt, " s; spin-up ", o.spinup_steps,
                  " steps, horizon T = ", T, " steps; ", o.method, " with learning rate ", o.learning_rate,
                  " (x constraint radius), ", o.iterations, " iterations; binomial checkpointing with ",
                  states, " stored states (each step evaluated at most ",
                  spectral::revolve_repetitions(T, states) + 1, " times)"));

    Problem p{spec, o, adj, spec.numerics.dt, T, states};
    spin_up(p, c.velocity);
    initial_perturbation(p);
    const spectral::Gradient last = iterate(p, out, comm, result);
    gradient_memory(p, last, out, comm, result);
    write_optimum(p, c, out, result);
    return result;
  });
}

}  // namespace eddy::app
