// The discrete adjoint of the 2D vorticity solver and its launches (equations: spectral/adjoint_k.hpp).
#include "spectral/adjoint.hpp"

#include <cmath>
#include <functional>
#include <string>

#include "backend/parallel.hpp"
#include "core/error.hpp"
#include "spectral/adjoint_k.hpp"
#include "spectral/revolve.hpp"

namespace eddy::spectral {

using C = Adjoint2d::C;
using Field = Adjoint2d::Field;

struct Adjoint2d::StepTape {
  Field x[4];  ///< stage values; x[0] (the step's start) is owned only when every step is stored
  Field n[4];  ///< nonlinear terms of the stage values
};

namespace {

// Launches are free functions: CUDA's extended lambdas may not live in private member functions.

void launch_advection_inputs(const Grid& g, const C* w, C* out, index_t cs) {
  backend::parallel_for("adjoint::advection_inputs_2d", g.modes(), [=] EDDY_DEVICE(index_t m) {
    advection_inputs_2d(Mode<double>::at(g, m), w[m], Complex<double>{1.0, 0.0}, out, m, cs);
  });
}

void launch_adjoint_inputs(const Grid& g, const C* w, const C* y, C* out, index_t cs) {
  backend::parallel_for("adjoint::adjoint_inputs_2d", g.modes(), [=] EDDY_DEVICE(index_t m) {
    const Mode<double> md = Mode<double>::at(g, m);
    advection_inputs_2d(md, w[m], Complex<double>{1.0, 0.0}, out, m, cs);
    out[m + 4 * cs] = adjoint_source_2d(md, y[m]);
  });
}

void launch_nonlinear_finish(const Grid& g, const C* raw, double scale, C* n) {
  const Rhs2d<double> rhs{raw, scale, false, {}};  // unforced: eddy optimize refuses forcing
  backend::parallel_for("adjoint::nonlinear_finish", g.modes(),
                        [=] EDDY_DEVICE(index_t m) { rhs(m, Mode<double>::at(g, m), g, n + m); });
}

void launch_transpose_finish(const Grid& g, const C* f, index_t cs, double scale, C* out) {
  backend::parallel_for("adjoint::nonlinear_transpose_2d", g.modes(), [=] EDDY_DEVICE(index_t m) {
    out[m] = nonlinear_transpose_2d(Mode<double>::at(g, m), f, m, cs, scale);
  });
}

void launch_products(const Grid& g, double* p, index_t rs, bool adjoint) {
  backend::parallel_for("adjoint::products_2d", g.points(), [=] EDDY_DEVICE(index_t i) {
    adjoint ? adjoint_products_2d(i, p, rs) : advection_2d(i, p, rs);
  });
}

void launch_stage(int stages, int s, const Grid& g, const C* n, const StageArgs<double>& a) {
  const GivenRhs<double> rhs{n};
  if (stages == 3)
    backend::parallel_for("adjoint::rk3_stage", g.modes(),
                          [=] EDDY_DEVICE(index_t m) { rk3_stage(s, m, g, rhs, a); });
  else
    backend::parallel_for("adjoint::rk4_stage", g.modes(),
                          [=] EDDY_DEVICE(index_t m) { rk4_stage(s, m, g, rhs, a); });
}

double launch_stage_adjoint(int stages, int s, const Grid& g, const Tape<double>& t,
                            const AdjointArgs<double>& a, bool want_nu) {
  if (want_nu)
    return backend::parallel_reduce(
        "adjoint::stage_adjoint_nu", g.modes(), 0.0,
        [=] EDDY_DEVICE(index_t m) {
          return stages == 3 ? rk3_stage_adjoint(s, m, g, t, a) : rk4_stage_adjoint(s, m, g, t, a);
        },
        backend::Sum{});
  // without dJ/dnu: no reduction, so no wait for the device
  backend::parallel_for("adjoint::stage_adjoint", g.modes(), [=] EDDY_DEVICE(index_t m) {
    (void)(stages == 3 ? rk3_stage_adjoint(s, m, g, t, a) : rk4_stage_adjoint(s, m, g, t, a));
  });
  return 0.0;
}

double reduce_dot(const Grid& g, const C* a, const C* b) {
  return backend::parallel_reduce(
      "adjoint::dot", g.modes(), 0.0,
      [=] EDDY_DEVICE(index_t m) { return dot_term(Mode<double>::at(g, m), a[m], b[m]); }, backend::Sum{});
}

void launch_axpby(const Grid& g, double alpha, const C* x, double beta, C* y) {
  backend::parallel_for("adjoint::axpby", g.modes(),
                        [=] EDDY_DEVICE(index_t m) { y[m] = alpha * x[m] + beta * y[m]; });
}

void launch_mask(const Grid& g, C* w) {
  backend::parallel_for("adjoint::mask", g.modes(), [=] EDDY_DEVICE(index_t m) {
    if (!Mode<double>::at(g, m).kept) w[m] = {0.0, 0.0};
  });
}

void launch_random(const Grid& g, const RandomSpectrum& r, C* w) {
  backend::parallel_for("adjoint::random_spectrum", g.modes(),
                        [=] EDDY_DEVICE(index_t m) { random_mode(g, m, r, w + m); });
}

void launch_adam(const Grid& g, double* x, const double* grad, double* m, double* v, double lr, double b1,
                 double b2, double c1, double c2, double eps) {
  backend::parallel_for("adjoint::adam", g.points(), [=] EDDY_DEVICE(index_t i) {
    m[i] = b1 * m[i] + (1 - b1) * grad[i];
    v[i] = b2 * v[i] + (1 - b2) * grad[i] * grad[i];
    x[i] += lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
  });
}

void copy(C* dst, const C* src, index_t n) {
  if (dst != src) backend::copy_on_device(dst, src, static_cast<std::size_t>(n) * sizeof(C));
}

}  // namespace

Adjoint2d::Adjoint2d(const Setup& s, field::TransposeExchange& exchange)
    : setup_(s),
      ex_(exchange),
      grid_(Grid::make(s.dims, s.cells, s.length, exchange.ranks(), exchange.rank(), false)),
      fft_(grid_, exchange) {
  if (s.dims != 2) throw InputError("domain.cells: the adjoint solver is 2D (two cells entries)");
  if (s.precision != Precision::fp64) throw InputError("numerics.precision: the adjoint solver runs in fp64");
  if (s.dealiasing != Dealiasing::two_thirds)
    throw InputError(
        "numerics.dealiasing: the adjoint solver needs two_thirds (phase shifts are not differentiated)");
  cs_ = fft_.complex_stride();
  rs_ = fft_.real_stride();
  w_.resize(static_cast<std::size_t>(5 * cs_), static_cast<std::size_t>(cs_));
  p_.resize(static_cast<std::size_t>(5 * rs_), static_cast<std::size_t>(rs_));
  tape_ = std::make_unique<StepTape>();
  for (int k = 1; k < stages(); ++k) tape_->x[k] = field();
  for (int k = 0; k < stages(); ++k) tape_->n[k] = field();
  for (Field* f : {&a_, &ub_, &xb_, &nb_, &accb_, &t0_, &t1_, &t2_, &acc_, &out_}) *f = field();
}

Adjoint2d::~Adjoint2d() = default;

Linear<double> Adjoint2d::linear() const {
  Linear<double> lin;
  lin.nu = setup_.nu;
  lin.nu_h = setup_.hyperviscosity;
  lin.p = setup_.hyperviscosity_order;
  lin.mu = setup_.drag;
  return lin;
}

double Adjoint2d::dot(const C* a, const C* b) {
  double d = reduce_dot(grid_, a, b);
  ex_.sum(&d, 1);
  return d;
}

void Adjoint2d::axpby(double alpha, const C* x, double beta, C* y) { launch_axpby(grid_, alpha, x, beta, y); }
void Adjoint2d::mask(C* w) { launch_mask(grid_, w); }
void Adjoint2d::random_spectrum(const RandomSpectrum& r, C* w) { launch_random(grid_, r, w); }

// The adjoint runs the full transforms (Modes::all, slab_fft.hpp), never the pruned ones: its fields
// (perturbations, gradients, the advection inputs formed from them) need not be zero outside the mask, and
// nonlinear_transpose_2d reads the products' transforms at every mode.
void Adjoint2d::to_physical(const C* w, double* p) {
  copy(w_.data(), w, cs_);
  fft_.backward(w_.data(), p, 1);
}

void Adjoint2d::from_physical(const double* p, C* w) {
  fft_.forward(p, w, 1);
  launch_axpby(grid_, 0.0, w, scale(), w);
}

void Adjoint2d::physical(const C* w, std::vector<double>& velocity, std::vector<double>& vorticity) {
  launch_advection_inputs(grid_, w, w_.data(), cs_);
  copy(w_.data() + 2 * cs_, w, cs_);
  fft_.backward(w_.data(), p_.data(), 3);
  const std::vector<double> h = p_.to_host();
  const auto n = static_cast<std::size_t>(grid_.points()), rs = static_cast<std::size_t>(rs_);
  velocity.resize(2 * n);
  vorticity.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    velocity[2 * i] = h[i];
    velocity[2 * i + 1] = h[i + rs];
    vorticity[i] = h[i + 2 * rs];
  }
}

void Adjoint2d::nonlinear(const C* w, C* n) {
  launch_advection_inputs(grid_, w, w_.data(), cs_);
  fft_.backward(w_.data(), p_.data(), 4);
  launch_products(grid_, p_.data(), rs_, false);
  fft_.forward(p_.data(), w_.data(), 1);
  launch_nonlinear_finish(grid_, w_.data(), scale(), n);
}

void Adjoint2d::nonlinear_adjoint(const C* w, const C* y, C* out) {
  launch_adjoint_inputs(grid_, w, y, w_.data(), cs_);
  fft_.backward(w_.data(), p_.data(), 5);
  launch_products(grid_, p_.data(), rs_, true);
  fft_.forward(p_.data(), w_.data(), 4);
  launch_transpose_finish(grid_, w_.data(), cs_, scale(), out);
}

/// The stage values x_s of stage s+1's input: the start, then the tape's.
void Adjoint2d::record(const C* start, C* out, StepTape& t, double dt) {
  copy(out, start, cs_);
  const int S = stages();
  for (int s = 1; s <= S; ++s) {
    nonlinear(s == 1 ? start : t.x[s - 1].data(), t.n[s - 1].data());
    const StageArgs<double> a{out, acc_.data(), t.x[s < S ? s : S - 1].data(), cs_, dt, linear()};
    launch_stage(S, s, grid_, t.n[s - 1].data(), a);
  }
}

void Adjoint2d::step(C* w, double dt) { record(w, w, *tape_, dt); }

void Adjoint2d::step_tangent(const C* w, C* d, double dt) {
  record(w, out_.data(), *tape_, dt);
  const int S = stages();
  for (int s = 1; s <= S; ++s) {
    // N'(x) dx = (N(x + dx) - N(x - dx)) / 2 exactly (N is quadratic), up to round-off.
    const C* x = s == 1 ? w : tape_->x[s - 1].data();
    const C* dx = s == 1 ? d : t1_.data();
    copy(t2_.data(), x, cs_);
    launch_axpby(grid_, 1.0, dx, 1.0, t2_.data());
    nonlinear(t2_.data(), nb_.data());
    launch_axpby(grid_, -2.0, dx, 1.0, t2_.data());
    nonlinear(t2_.data(), xb_.data());
    copy(t2_.data(), nb_.data(), cs_);
    launch_axpby(grid_, -0.5, xb_.data(), 0.5, t2_.data());
    const StageArgs<double> a{d, t0_.data(), t1_.data(), cs_, dt, linear()};
    launch_stage(S, s, grid_, t2_.data(), a);
  }
}

double Adjoint2d::reverse(const C* start, const StepTape& t, C* lambda, double dt, bool want_nu,
                          C* const* nbar) {
  const int S = stages();
  Tape<double> view{};
  view.x[0] = start;
  for (int k = 1; k < S; ++k) view.x[k] = t.x[k].data();
  for (int k = 0; k < S; ++k) view.n[k] = t.n[k].data();
  copy(a_.data(), lambda, cs_);
  const AdjointArgs<double> args{a_.data(), ub_.data(), xb_.data(), nb_.data(), accb_.data(), dt, linear()};
  double dnu = 0.0;
  for (int s = S; s >= 1; --s) {
    dnu += launch_stage_adjoint(S, s, grid_, view, args, want_nu);
    if (nbar) {  // frozen: n_s is an input, not N(x_s)
      copy(nbar[s - 1], nb_.data(), cs_);
      launch_axpby(grid_, 0.0, nb_.data(), 0.0, xb_.data());
    } else {
      nonlinear_adjoint(view.x[s - 1], nb_.data(), xb_.data());
    }
  }
  launch_axpby(grid_, 1.0, xb_.data(), 1.0, ub_.data());  // stage 1's N'(u)^T n1b
  copy(lambda, ub_.data(), cs_);
  if (!want_nu) return 0.0;
  ex_.sum(&dnu, 1);
  return dnu;
}

void Adjoint2d::step_frozen(C* u, const C* const* n, double dt) {
  const int S = stages();
  for (int s = 1; s <= S; ++s) {
    const StageArgs<double> a{u, acc_.data(), tape_->x[s < S ? s : S - 1].data(), cs_, dt, linear()};
    launch_stage(S, s, grid_, n[s - 1], a);
  }
}

void Adjoint2d::step_frozen_adjoint(C* lambda, C* const* nbar, double dt) {
  // The tape's values enter only dJ/dnu, which is not asked for; stage values are not read.
  reverse(out_.data(), *tape_, lambda, dt, false, nbar);
}

double Adjoint2d::step_adjoint(const C* w, C* lambda, double dt, bool want_nu) {
  record(w, out_.data(), *tape_, dt);
  return reverse(w, *tape_, lambda, dt, want_nu);
}

namespace {

/// The Ops of spectral/revolve.hpp over an Adjoint2d: states in slots; the reverse step is the caller's.
struct SweepOps {
  Adjoint2d& adj;
  std::vector<Field>& slots;
  double dt;
  std::function<void(const C*, long)> reverse_step;  // (the step's start, its number)

  void copy(int dst, int src) { spectral::copy(slots[dst].data(), slots[src].data(), adj.stride()); }
  void advance(int slot, long n) {
    for (long i = 0; i < n; ++i) adj.step(slots[static_cast<std::size_t>(slot)].data(), dt);
  }
  void reverse(int slot, long step) { reverse_step(slots[static_cast<std::size_t>(slot)].data(), step); }
};

}  // namespace

Gradient Adjoint2d::gradient(const C* w0, const C* target, long steps, double dt, int snapshots, C* grad,
                             bool want_nu) {
  backend::reset_peak_memory();
  Gradient g;
  g.stats.adjoint_steps = steps;
  // The loss and lambda_T = dJ/dw_T = 2 (w_T - target) from the final state in out_.
  auto final_state = [&] {
    launch_axpby(grid_, -1.0, target, 1.0, out_.data());
    g.loss = dot(out_.data(), out_.data());
    launch_axpby(grid_, 2.0, out_.data(), 0.0, grad);
  };
  if (snapshots <= 0) {  // every step and stage kept
    std::vector<StepTape> tapes(static_cast<std::size_t>(steps));
    copy(out_.data(), w0, cs_);
    for (StepTape& t : tapes) {
      for (int k = 0; k < stages(); ++k) t.x[k] = field(), t.n[k] = field();
      copy(t.x[0].data(), out_.data(), cs_);
      record(t.x[0].data(), out_.data(), t, dt);
    }
    g.stats.forward_steps = steps;
    g.stats.snapshots = static_cast<int>(steps);
    g.stats.device_used = backend::device_memory_used();
    final_state();
    for (long i = steps - 1; i >= 0; --i) {
      StepTape& t = tapes[static_cast<std::size_t>(i)];
      g.dloss_dnu += reverse(t.x[0].data(), t, grad, dt, want_nu);
    }
  } else {
    std::vector<Field> slots(static_cast<std::size_t>(snapshots) + 1);
    for (Field& f : slots) f = field();
    copy(slots[0].data(), w0, cs_);
    g.stats.device_used = backend::device_memory_used();
    SweepOps ops{*this, slots, dt, [&](const C* start, long step) {
                   record(start, out_.data(), *tape_, dt);  // the stage values, and w_T at the last step
                   if (step == steps - 1) final_state();
                   g.dloss_dnu += reverse(start, *tape_, grad, dt, want_nu);
                 }};
    Revolve<SweepOps> rev(ops, snapshots);
    rev.run(steps);
    g.stats.forward_steps = rev.advances() + steps;
    g.stats.snapshots = rev.slots_used();
  }
  g.stats.peak_bytes = backend::memory_usage().peak;
  return g;
}

void Adjoint2d::adam_ascent(double* x, const double* g, double* m, double* v, long t, double lr, double b1,
                            double b2, double eps) {
  launch_adam(grid_, x, g, m, v, lr, b1, b2, 1 - std::pow(b1, double(t)), 1 - std::pow(b2, double(t)), eps);
}

std::size_t Adjoint2d::bytes_allocated() const {
  std::size_t b = w_.bytes() + p_.bytes() + fft_.bytes();
  for (const Field* f : {&a_, &ub_, &xb_, &nb_, &accb_, &t0_, &t1_, &t2_, &acc_, &out_}) b += f->bytes();
  for (int k = 0; k < 4; ++k) b += tape_->x[k].bytes() + tape_->n[k].bytes();
  return b;
}

void Adjoint2d::set_nu(double nu) { setup_.nu = nu; }

}  // namespace eddy::spectral
