// spectral/adjoint: the discrete adjoint of the 2D vorticity solver, FP64, one rank.
//  - dot-product tests <y, A x> = <A^T y, x> for the nonlinear term's linearisation, the stage updates
//    (the step with its nonlinear terms held fixed, linear in u and the terms) and for a whole
//    RK3 / RK4 step (tangent by the exact polarisation of the quadratic term), to 1e-12 relative;
//  - the gradient of J = <w_T - target, w_T - target> with respect to w_0 and nu against central finite
//    differences in random directions, to 1e-6 relative;
//  - the forward step equals the solver's (bitwise on the CPU);
//  - the binomial schedule (revolve.hpp) reverses every step once, in order, with the optimal number of
//    forward steps, and gives the same gradient, bit for bit, as storing every step and stage.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "app/optimize.hpp"
#include "backend/backend.hpp"
#include "core/error.hpp"
#include "field/slab.hpp"
#include "io/config/config.hpp"
#include "parallel/comm.hpp"
#include "spectral/adjoint.hpp"
#include "spectral/revolve.hpp"
#include "spectral/spectral_solver.hpp"

namespace {

using eddy::spectral::Adjoint2d;
using eddy::spectral::RandomSpectrum;
using C = Adjoint2d::C;
using Field = Adjoint2d::Field;

eddy::spectral::Setup setup(const std::string& stepper, int n = 32) {
  eddy::spectral::Setup s;
  s.dims = 2;
  s.cells = {n, n, 1};
  s.length = {2 * M_PI, 2 * M_PI, 1.0};
  s.stepper = eddy::spectral::stepper_names.parse(stepper, "stepper");
  s.nu = 1e-2;
  return s;
}

/// A smooth random vorticity (the solver's random spectrum, RMS about 1.5) plus `noise` times white
/// noise (every mode of the half spectrum, including those outside the 2/3 mask).
Field random_field(Adjoint2d& adj, std::uint64_t seed, double noise) {
  Field w = adj.field();
  adj.random_spectrum(RandomSpectrum::make(1.0, 4.0, 3.0, seed), w.data());
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::vector<double> p(static_cast<std::size_t>(adj.real_stride()), 0.0);
  for (eddy::index_t i = 0; i < adj.grid().points(); ++i)
    p[static_cast<std::size_t>(i)] = noise * normal(gen);
  eddy::backend::DeviceArray<double> d;
  d.from_host(p);
  Field f = adj.field();
  adj.from_physical(d.data(), f.data());
  adj.axpby(1.0, f.data(), 1.0, w.data());
  return w;
}

double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b)); }

// Round-off: each side is a sum of N products of fields that went through a few FFTs (relative error
// ~ 1e-16 log N each); 1e-12 leaves three orders of magnitude for cancellation in the sums.
TEST(Adjoint, NonlinearTermDotProduct) {
  eddy::field::LocalTransposeExchange ex;
  Adjoint2d adj(setup("rk4"), ex);
  const Field w = random_field(adj, 1, 0.3), x = random_field(adj, 2, 0.3), y = random_field(adj, 3, 0.3);
  // N'(w) x = (N(w + x) - N(w - x)) / 2, exact for the quadratic N
  Field p = adj.field(), m = adj.field(), ax = adj.field(), aty = adj.field();
  adj.axpby(1.0, w.data(), 0.0, p.data());
  adj.axpby(1.0, x.data(), 1.0, p.data());
  adj.axpby(1.0, w.data(), 0.0, m.data());
  adj.axpby(-1.0, x.data(), 1.0, m.data());
  adj.nonlinear(p.data(), ax.data());
  adj.nonlinear(m.data(), m.data());
  adj.axpby(-0.5, m.data(), 0.5, ax.data());
  adj.nonlinear_adjoint(w.data(), y.data(), aty.data());
  const double lhs = adj.dot(y.data(), ax.data()), rhs = adj.dot(aty.data(), x.data());
  EXPECT_GT(std::fabs(lhs), 1e-3);
  EXPECT_LT(rel(lhs, rhs), 1e-12) << lhs << " vs " << rhs;
  std::printf("nonlinear term: <y, N'x> = %.16e, relative difference %.2e\n", lhs, rel(lhs, rhs));
}

void step_dot_product(const std::string& stepper) {
  eddy::field::LocalTransposeExchange ex;
  auto s = setup(stepper);
  s.hyperviscosity = 1e-6;  // every linear coefficient in play
  s.drag = 0.1;
  Adjoint2d adj(s, ex);
  const Field w = random_field(adj, 4, 0.1), x = random_field(adj, 5, 0.3), y = random_field(adj, 6, 0.3);
  const double dt = 0.02;  // CFL about 0.3 for |u| ~ 0.3 on 32 points
  Field ax = adj.field(), aty = adj.field();
  adj.axpby(1.0, x.data(), 0.0, ax.data());
  adj.step_tangent(w.data(), ax.data(), dt);
  adj.axpby(1.0, y.data(), 0.0, aty.data());
  adj.step_adjoint(w.data(), aty.data(), dt, false);
  const double lhs = adj.dot(y.data(), ax.data()), rhs = adj.dot(aty.data(), x.data());
  EXPECT_GT(std::fabs(lhs), 1e-3);
  EXPECT_LT(rel(lhs, rhs), 1e-12) << stepper << ": " << lhs << " vs " << rhs;
  std::printf("%s step: <y, Phi'x> = %.16e, relative difference %.2e\n", stepper.c_str(), lhs, rel(lhs, rhs));
}
TEST(Adjoint, Rk3StepDotProduct) { step_dot_product("rk3"); }

/// The stage updates: the step with its nonlinear terms held fixed is linear in (u, n_1..n_S).
void stage_dot_product(const std::string& stepper) {
  eddy::field::LocalTransposeExchange ex;
  auto s = setup(stepper);
  s.hyperviscosity = 1e-6;
  s.drag = 0.1;
  Adjoint2d adj(s, ex);
  const int S = adj.stages();
  const double dt = 0.02;
  Field xu = random_field(adj, 30, 0.3), yu = random_field(adj, 31, 0.3);
  std::vector<Field> xn, nbar;
  std::vector<const C*> pn;
  std::vector<C*> pbar;
  for (int k = 0; k < S; ++k) {
    xn.push_back(random_field(adj, 40 + k, 0.3)), nbar.push_back(adj.field());
    pn.push_back(xn.back().data()), pbar.push_back(nbar.back().data());
  }
  Field ax = adj.field(), aty = adj.field();
  adj.axpby(1.0, xu.data(), 0.0, ax.data());
  adj.step_frozen(ax.data(), pn.data(), dt);
  adj.axpby(1.0, yu.data(), 0.0, aty.data());
  adj.step_frozen_adjoint(aty.data(), pbar.data(), dt);
  const double lhs = adj.dot(yu.data(), ax.data());
  double rhs = adj.dot(aty.data(), xu.data());
  for (int k = 0; k < S; ++k)
    rhs += adj.dot(nbar[static_cast<std::size_t>(k)].data(), pn[static_cast<std::size_t>(k)]);
  EXPECT_GT(std::fabs(lhs), 1e-3);
  EXPECT_LT(rel(lhs, rhs), 1e-12) << stepper << ": " << lhs << " vs " << rhs;
  std::printf("%s stage updates: <y, S(u, n)> = %.16e, relative difference %.2e\n", stepper.c_str(), lhs,
              rel(lhs, rhs));
}
TEST(Adjoint, Rk3StageUpdatesDotProduct) { stage_dot_product("rk3"); }
TEST(Adjoint, Rk4StageUpdatesDotProduct) { stage_dot_product("rk4"); }
TEST(Adjoint, Rk4StepDotProduct) { step_dot_product("rk4"); }

TEST(Adjoint, ForwardStepEqualsSolver) {
  for (const std::string stepper : {"rk3", "rk4"}) {
    eddy::field::LocalTransposeExchange ex;
    const auto s = setup(stepper);
    Adjoint2d adj(s, ex);
    auto solver = eddy::spectral::make_solver(s, ex);
    const RandomSpectrum r = RandomSpectrum::make(1.0, 4.0, 3.0, 7);
    solver->set_random_spectrum(r);
    Field w = adj.field();
    adj.random_spectrum(r, w.data());
    for (int k = 0; k < 5; ++k) solver->step(0.02), adj.step(w.data(), 0.02);
    const std::vector<unsigned char> b = solver->save_state();
    const std::vector<C> h = w.to_host();
    ASSERT_EQ(b.size(), static_cast<std::size_t>(adj.grid().modes()) * sizeof(C));
    std::vector<C> ref(h.size());
    std::memcpy(ref.data(), b.data(), b.size());
    // The same kernels on the same data; the solver fuses the nonlinear term's scaling into the stage
    // kernel, so a device compiler may contract differently (FMA): equal to round-off, bitwise on the CPU.
    double d = 0, m = 0;
    for (std::size_t k = 0; k < h.size(); ++k)
      d = std::max(d, std::hypot(h[k].re - ref[k].re, h[k].im - ref[k].im)),
      m = std::max(m, std::hypot(ref[k].re, ref[k].im));
    EXPECT_LT(d, 1e-14 * m) << stepper;
    if (!eddy::backend::is_gpu()) EXPECT_EQ(d, 0.0) << stepper;
  }
}

/// J(w0) after `steps` steps against a fixed target.
double loss(Adjoint2d& adj, const Field& w0, const Field& target, int steps, double dt) {
  Field w = adj.field(), e = adj.field();
  adj.axpby(1.0, w0.data(), 0.0, w.data());
  for (int k = 0; k < steps; ++k) adj.step(w.data(), dt);
  adj.axpby(1.0, w.data(), 0.0, e.data());
  adj.axpby(-1.0, target.data(), 1.0, e.data());
  return adj.dot(e.data(), e.data());
}

// Central differences with a relative step eps = 1e-4: truncation error ~ eps^2 J''' / 6 ~ 1e-8 relative
// for J of order-one curvature in these units, round-off ~ 1e-16 / eps = 1e-12; 1e-6 is the acceptance bound.
void gradient_check(const std::string& stepper) {
  eddy::field::LocalTransposeExchange ex;
  auto s = setup(stepper);
  Adjoint2d adj(s, ex);
  const Field w0 = random_field(adj, 8, 0.0), target = random_field(adj, 9, 0.0);
  const int steps = 8;
  const double dt = 0.02, eps = 1e-4;
  Field grad = adj.field();
  const eddy::spectral::Gradient g = adj.gradient(w0.data(), target.data(), steps, dt, 3, grad.data(), true);
  EXPECT_LT(rel(g.loss, loss(adj, w0, target, steps, dt)), 1e-14);
  for (std::uint64_t seed : {11, 12, 13}) {
    const Field d = random_field(adj, seed, 0.2);
    Field wp = adj.field(), wm = adj.field();
    adj.axpby(1.0, w0.data(), 0.0, wp.data());
    adj.axpby(eps, d.data(), 1.0, wp.data());
    adj.axpby(1.0, w0.data(), 0.0, wm.data());
    adj.axpby(-eps, d.data(), 1.0, wm.data());
    const double fd = (loss(adj, wp, target, steps, dt) - loss(adj, wm, target, steps, dt)) / (2 * eps);
    const double ad = adj.dot(grad.data(), d.data());
    EXPECT_LT(rel(fd, ad), 1e-6) << stepper << " direction " << seed << ": fd " << fd << " adjoint " << ad;
    std::printf("%s dJ/dw0 . d%d: adjoint %.12e, central difference %.12e, relative %.2e\n", stepper.c_str(),
                int(seed), ad, fd, rel(fd, ad));
  }
  const double nu = s.nu, h = eps * nu;
  adj.set_nu(nu + h);
  const double jp = loss(adj, w0, target, steps, dt);
  adj.set_nu(nu - h);
  const double jm = loss(adj, w0, target, steps, dt);
  adj.set_nu(nu);
  const double fd = (jp - jm) / (2 * h);
  EXPECT_LT(rel(fd, g.dloss_dnu), 1e-6) << stepper << " dJ/dnu: fd " << fd << " adjoint " << g.dloss_dnu;
  std::printf("%s dJ/dnu: adjoint %.12e, central difference %.12e, relative %.2e\n", stepper.c_str(),
              g.dloss_dnu, fd, rel(fd, g.dloss_dnu));
}
TEST(Adjoint, Rk3GradientMatchesFiniteDifferences) { gradient_check("rk3"); }
TEST(Adjoint, Rk4GradientMatchesFiniteDifferences) { gradient_check("rk4"); }

/// Ops that move step numbers instead of fields: checks that every reverse sees the right state, once,
/// last step first.
struct CountingOps {
  std::vector<long> slot;
  long next = 0;  // the step the next reverse must be
  bool ok = true;
  void copy(int dst, int src) {
    slot.at(static_cast<std::size_t>(dst)) = slot.at(static_cast<std::size_t>(src));
  }
  void advance(int s, long n) { slot.at(static_cast<std::size_t>(s)) += n; }
  void reverse(int s, long step) {
    ok = ok && step == next && slot.at(static_cast<std::size_t>(s)) == step;
    --next;
  }
};

TEST(Revolve, ReversesEveryStepInOrderWithTheBinomialCount) {
  for (long steps : {1L, 2L, 5L, 17L, 80L, 300L})
    for (int c : {1, 2, 3, 5, 8, 80}) {
      CountingOps ops;
      ops.slot.assign(static_cast<std::size_t>(c) + 1, 0);
      ops.next = steps - 1;
      eddy::spectral::Revolve<CountingOps> rev(ops, c);
      rev.run(steps);
      EXPECT_TRUE(ops.ok && ops.next == -1) << steps << " steps, " << c << " states";
      EXPECT_LE(rev.slots_used(), c + 1);
      EXPECT_EQ(rev.advances(), eddy::spectral::revolve_advances(steps, c)) << steps << " steps, " << c;
    }
  // the schedule of the optimisation case: 80 steps with 8 states, each step advanced at most 3 times (C(11,
  // 8) = 165 >= 80 > C(10, 8))
  EXPECT_EQ(eddy::spectral::revolve_repetitions(80, 8), 3);
}

TEST(Revolve, GradientEqualsStoringEverything) {
  eddy::field::LocalTransposeExchange ex;
  Adjoint2d adj(setup("rk4"), ex);
  const Field w0 = random_field(adj, 21, 0.0), target = random_field(adj, 22, 0.0);
  const int steps = 12;
  Field all = adj.field(), ckpt = adj.field();
  const auto ga = adj.gradient(w0.data(), target.data(), steps, 0.02, 0, all.data(), true);
  EXPECT_EQ(ga.stats.forward_steps, steps);
  const std::vector<C> ha = all.to_host();
  for (int c : {1, 2, 4, 12}) {
    const auto gc = adj.gradient(w0.data(), target.data(), steps, 0.02, c, ckpt.data(), true);
    const std::vector<C> hc = ckpt.to_host();
    EXPECT_EQ(0, std::memcmp(ha.data(), hc.data(), ha.size() * sizeof(C))) << c << " states";
    EXPECT_EQ(ga.loss, gc.loss);
    EXPECT_EQ(ga.dloss_dnu, gc.dloss_dnu);
    EXPECT_EQ(gc.stats.forward_steps, steps + eddy::spectral::revolve_advances(steps, c));
    EXPECT_LE(gc.stats.snapshots, c + 1);
    EXPECT_LT(gc.stats.peak_bytes, ga.stats.peak_bytes) << c << " states";
  }
}

/// Bad input for `eddy optimize` is an InputError (exit 2) naming the key, before any file is written.
TEST(Optimize, BadInputNamesTheKeyAndWritesNothing) {
  const std::string cfg =
      std::string(EDDY_SOURCE_DIR) + "/cases/optimal_perturbation/optimal_perturbation2d.yaml";
  auto error = [&](const std::vector<std::string>& sets) -> std::string {
    const eddy::parallel::Comm comm;
    eddy::app::RunOptions opt;
    opt.out_dir = "adjoint_bad_input";
    opt.quiet = true;
    try {
      eddy::app::optimize(eddy::config::load_file(cfg, sets), opt, comm);
    } catch (const eddy::InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error({"numerics.precision=fp32"}).find("numerics.precision"), std::string::npos);
  EXPECT_NE(error({"numerics.dealiasing=phase_shift"}).find("numerics.dealiasing"), std::string::npos);
  EXPECT_NE(error({"domain.cells=[16,16,16]"}).find("domain.cells"), std::string::npos);
  EXPECT_NE(error({"initial.type=taylor_green"}).find("initial.type"), std::string::npos);
  EXPECT_NE(error({"numerics.dt=0", "numerics.cfl=0.5"}).find("numerics.dt"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("adjoint_bad_input"));
  try {  // the schema checks the optimize section's values
    eddy::config::load_file(cfg, {"optimize.norm_ratio=-1"});
    ADD_FAILURE() << "optimize.norm_ratio=-1 accepted";
  } catch (const eddy::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("optimize.norm_ratio"), std::string::npos) << e.what();
  }
}

}  // namespace
