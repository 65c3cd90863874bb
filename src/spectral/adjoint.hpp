#pragma once
/// The discrete adjoint of the 2D spectral vorticity solver (FP64): tangent and transpose of one
/// integrating-factor RK step (SSP-RK3 or RK4, 2/3-rule dealiasing), and the gradient of a final-state loss
/// with respect to the initial vorticity and the viscosity by a reverse sweep whose forward states are kept
/// by a binomial checkpointing schedule (spectral/revolve.hpp) or, for comparison, every step and stage.
///
/// Fields are spectral vorticity arrays of stride() complex numbers in the solver's layout (grid.hpp);
/// gradients are representers under the inner product of adjoint_k.hpp (the physical mean), so
/// dJ = <grad, d omega_0>. The forward step performs exactly the arithmetic of Solver::step (the same
/// stage kernels), so trajectories agree bitwise. Like the solver, it knows no MPI: reductions go through
/// the field::TransposeExchange the app gives it.
#include <cstddef>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "field/slab.hpp"
#include "spectral/grid.hpp"
#include "spectral/initial_k.hpp"
#include "spectral/navier_stokes_k.hpp"
#include "spectral/slab_fft.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::spectral {

/// What a reverse sweep did.
struct SweepStats {
  long forward_steps = 0;       ///< forward steps taken, first sweep and recomputations
  long adjoint_steps = 0;       ///< reverse steps (= the horizon)
  int snapshots = 0;            ///< most states held at once (the initial state included)
  std::size_t peak_bytes = 0;   ///< most memory eddy held during the sweep (backend::memory_usage)
  std::size_t device_used = 0;  ///< in use per the driver with every stored state allocated
};

/// J = <w_T - target, w_T - target> (the mean square difference) and its gradients.
struct Gradient {
  double loss = 0.0;
  double dloss_dnu = 0.0;  ///< when asked for
  SweepStats stats;
};

class Adjoint2d {
 public:
  using C = backend::Complex<double>;
  using Field = backend::DeviceArray<C>;

  /// InputError unless 2D, fp64, two_thirds dealiasing. The exchange must outlive the object.
  Adjoint2d(const Setup& s, field::TransposeExchange& exchange);
  ~Adjoint2d();

  const Grid& grid() const { return grid_; }
  const Setup& setup() const { return setup_; }
  /// Elements between fields; the size of a spectral field array.
  index_t stride() const { return cs_; }
  /// Physical points of this rank's slab (a physical array holds real_stride() doubles).
  index_t real_stride() const { return rs_; }
  /// A zeroed spectral field.
  Field field() const { return Field(static_cast<std::size_t>(cs_)); }
  void set_nu(double nu);

  // ---- vector operations (collective where they reduce)
  /// The inner product of adjoint_k.hpp, summed over ranks: the physical mean of a b.
  double dot(const C* a, const C* b);
  /// y = alpha x + beta y.
  void axpby(double alpha, const C* x, double beta, C* y);
  /// Zero the modes outside the 2/3 mask.
  void mask(C* w);

  // ---- fields
  /// The random-spectrum field of initial_k.hpp (the solver's set_random_spectrum).
  void random_spectrum(const RandomSpectrum& r, C* w);
  /// Physical values (real_stride() doubles on the device) of w.
  void to_physical(const C* w, double* p);
  /// Normalised transform of a physical field (real_stride() doubles on the device).
  void from_physical(const double* p, C* w);
  /// Physical velocity (x fastest, 2 components per point) and vorticity of w on this rank's slab.
  void physical(const C* w, std::vector<double>& velocity, std::vector<double>& vorticity);

  // ---- dynamics
  /// One forward step of dt in place.
  void step(C* w, double dt);
  /// n = N(w), the nonlinear term.
  void nonlinear(const C* w, C* n);
  /// out = N'(w)^T y.
  void nonlinear_adjoint(const C* w, const C* y, C* out);
  /// d = Phi'(w) d for the step Phi of dt (tests: the dot-product test of the whole step).
  void step_tangent(const C* w, C* d, double dt);
  /// lambda = Phi'(w)^T lambda; returns <lambda, dPhi/dnu (w)> (the step's share of dJ/dnu) when want_nu.
  double step_adjoint(const C* w, C* lambda, double dt, bool want_nu);

  /// The stage updates alone (tests): u = the step with the stage's nonlinear terms held at the given n[s]
  /// (stages() fields), a map linear in (u, n).
  void step_frozen(C* u, const C* const* n, double dt);
  /// Its transpose: lambda = (du'/du)^T lambda, nbar[s] = (du'/dn_s)^T lambda.
  void step_frozen_adjoint(C* lambda, C* const* nbar, double dt);
  int stages() const { return rk_stages(setup_.stepper); }

  /// The loss after `steps` steps from w0 against `target`, and grad = dJ/dw0 (a field). snapshots >= 1:
  /// binomial checkpointing with that many stored states (the initial one included); snapshots = 0:
  /// every step's state and stage values kept (the memory baseline, no recomputation).
  Gradient gradient(const C* w0, const C* target, long steps, double dt, int snapshots, C* grad,
                    bool want_nu);

  /// Adam (Kingma & Ba 2015) ascent on physical fields (real_stride() doubles on the device), iteration t >=
  /// 1: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, x += lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) +
  /// eps).
  void adam_ascent(double* x, const double* g, double* m, double* v, long t, double lr, double b1, double b2,
                   double eps);

  /// Device memory held by this object now, bytes.
  std::size_t bytes_allocated() const;

  /// Per-step stored values of a step (stage values and nonlinear terms).
  struct StepTape;

 private:
  /// One forward step from `start` into `out` (may be the same array), keeping its stage values in t.
  void record(const C* start, C* out, StepTape& t, double dt);
  /// The reverse step; with nbar, the nonlinear terms are held fixed (their adjoints go to nbar[s]).
  double reverse(const C* u, const StepTape& t, C* lambda, double dt, bool want_nu, C* const* nbar = nullptr);
  Linear<double> linear() const;
  double scale() const { return 1.0 / double(grid_.total_points()); }

  Setup setup_;
  field::TransposeExchange& ex_;
  Grid grid_;
  SlabFft<double> fft_;
  index_t cs_ = 0, rs_ = 0;
  Field w_;                         // transform work, 5 spectral fields
  backend::DeviceArray<double> p_;  // transform work, 5 physical fields
  std::unique_ptr<StepTape> tape_;  // the stage values of the step being reversed
  Field a_, ub_, xb_, nb_, accb_;   // reverse-step work (adjoint_k.hpp AdjointArgs)
  Field t0_, t1_, t2_;              // tangent work
  Field acc_, out_;                 // the RK accumulator; a recorded step's result
};

}  // namespace eddy::spectral
