// The spectral solver for each precision, and its launches.
#include "spectral/spectral_solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "backend/graph.hpp"
#include "backend/parallel.hpp"
#include "core/error.hpp"
#include "spectral/initial_k.hpp"
#include "spectral/slab_fft.hpp"
#include "spectral/spectrum_k.hpp"
#include "spectral/stepper_k.hpp"

namespace eddy::spectral {
namespace {

using backend::DeviceArray;

// Launches are free functions: CUDA's extended lambdas may not live in private member functions.

/// exp(i k.delta) for the half-cell shift, or 1.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> shift_phase(const Mode<T>& md, const Grid& g, bool shifted) {
  return shifted ? md.shift(g, 1) : Complex<T>{T(1), T(0)};
}

/// Zero at local mode m of `fields` spectral arrays cs apart: what a truncated mode of the state (zero
/// there, see SolverImpl) gives as transform inputs, written without reading it.
template <class T>
EDDY_HD EDDY_INLINE void zero_mode(Complex<T>* out, index_t m, index_t cs, int fields) {
  for (int f = 0; f < fields; ++f) out[m + f * cs] = {T(0), T(0)};
}

template <class T>
void launch_advection_2d(const Grid& g, T* p, index_t rs) {
  backend::parallel_for("spectral::advection_2d", g.points(),
                        [=] EDDY_DEVICE(index_t i) { advection_2d(i, p, rs); });
}

/// omega (zero outside the mask, where u is).
template <class T>
void launch_vorticity_3d(const Grid& g, const Complex<T>* u, Complex<T>* out, index_t cs) {
  backend::parallel_for("spectral::vorticity_3d", g.modes(),
                        [=] EDDY_DEVICE(index_t m) { vorticity_3d(Mode<T>::at(g, m), u, out, m, cs); });
}

template <class T>
void launch_products_3d(const Grid& g, T* p, index_t rs) {
  backend::parallel_for("spectral::products_3d", g.points(),
                        [=] EDDY_DEVICE(index_t i) { products_3d(i, p, rs); });
}

/// A stage's sink (stepper_k.hpp) that writes the new stage value x straight into the inputs of the next
/// stage's backward transforms (2D: u, v, omega_x, omega_y; 3D: u), formed on the shifted grid when
/// `shifted` (phase()), and keeps x in a.x only where something reads it back (`keep_x`: the band-limited
/// force, RK3's stage 3). The last stage hands it the new state: the inputs of the next step's stage 1.
/// `out` is the array the stage's nonlinear term was read from: each mode reads its own entries before it
/// writes them, so in place is exact. A truncated mode gets truncated(): the zeros of its inputs (the
/// backward transforms destroy them, and the forward ones leave the products' aliases there), nothing else.
template <class T>
struct NextInputs {
  Complex<T>* out;
  index_t cs;
  bool shifted, keep_x;
  EDDY_HD static constexpr bool last() { return true; }
  EDDY_HD EDDY_INLINE Complex<T> phase(const Mode<T>& md, const Grid& grid) const {
    return shift_phase(md, grid, shifted);
  }
  EDDY_HD EDDY_INLINE bool keeps() const { return keep_x; }
  template <int D>
  EDDY_HD EDDY_INLINE void keep(index_t m, const StageArgs<T>& a, const Complex<T> (&x)[D]) const {
    for (int d = 0; d < D; ++d) a.x[m + d * a.cs] = x[d];
  }
  template <int D>
  EDDY_HD EDDY_INLINE void inputs(index_t m, const Mode<T>& md, Complex<T> phase,
                                  const Complex<T> (&x)[D]) const {
    if constexpr (D == 1)
      advection_inputs_2d(md, x[0], phase, out, m, cs);
    else
      velocity_3d_of(x, phase, out, m, cs);
  }
  template <int D>
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& md, Complex<T> phase, const StageArgs<T>& a,
                                      const Complex<T> (&x)[D]) const {
    if (keep_x) keep(m, a, x);
    inputs(m, md, phase, x);
  }
  /// The zeros of a truncated mode's inputs, those of a state of D components (2D 4, 3D 3).
  template <int D>
  EDDY_HD EDDY_INLINE void truncated(index_t m) const {
    zero_mode(out, m, cs, D == 1 ? 4 : 3);
  }
};

/// Mode j of inputs_run's vector loop (stepper_k.hpp, stage_lane: why a function).
template <int D, class T>
EDDY_HD EDDY_INLINE void inputs_lane(const ModeRun& run, index_t j, const Grid& g, const Complex<T>* u,
                                     Complex<T> phase, const NextInputs<T>& next) {
  const index_t m = run.m0 + j;
  Complex<T> x[D];
  for (int d = 0; d < D; ++d) x[d] = u[m + d * next.cs];
  next.inputs(m, run.kept_mode<T>(g, j), phase, x);
}

/// The inputs of the backward transforms of state `u` (D components, `next.cs` apart) over a run of at most
/// W modes of one row (grid.hpp: ModeRun), as stage_run (stepper_k.hpp) runs a stage: the phases first,
/// then the kept modes in a vector loop, then the truncated ones' zeros.
template <int D, int W, class T>
EDDY_HD EDDY_INLINE void inputs_run(const ModeRun& run, const Grid& g, const Complex<T>* u,
                                    const NextInputs<T>& next) {
  if constexpr (W == 1) {  // one mode, no arrays over lanes (as stage_run)
    if (run.kept > 0) {
      const Mode<T> md = run.kept_mode<T>(g, 0);
      inputs_lane<D>(run, 0, g, u, next.phase(md, g), next);
    } else if (run.count > 0) {
      next.template truncated<D>(run.m0);
    }
  } else {
    Complex<T> phase[W];
    for (index_t j = 0; j < run.kept; ++j) phase[j] = next.phase(run.kept_mode<T>(g, j), g);
    EDDY_SIMD for (index_t j = 0; j < run.kept; ++j) inputs_lane<D>(run, j, g, u, phase[j], next);
    EDDY_SIMD for (index_t j = run.kept; j < run.count; ++j) next.template truncated<D>(run.m0 + j);
  }
}

/// The inputs of the backward transforms of state `u` (2D: omega; 3D: u, component arrays `next.cs`
/// apart) at every mode, written by the sink the stages use: formed on the shifted grid where
/// `next.shifted`, zero outside the mask. Rows of the mode box in runs of backend::row_chunk modes (one
/// a GPU thread, in the order of the flat mode index).
template <class T>
void launch_inputs(const Grid& g, const Complex<T>* u, const NextInputs<T>& next) {
  const Grid::ModeBox b = g.mode_box();
  backend::parallel_for_row_chunks<backend::BoxLaunch::grid_stride>(
      "spectral::inputs", b.nx, b.ny, b.nz, [=] EDDY_DEVICE(index_t x0, index_t count, index_t y, index_t z) {
        const ModeRun run = ModeRun::at(g, x0, count, y, z);
        if (g.dims == 2)
          inputs_run<1, backend::row_chunk>(run, g, u, next);
        else
          inputs_run<3, backend::row_chunk>(run, g, u, next);
      });
}

/// Stage s of RK3 or RK4 (`stages`) at the kept modes only: elsewhere u, acc, x and the nonlinear term are
/// zero and stay so (step()), so a truncated mode reads nothing and writes only its inputs' zeros. Rows of
/// the mode box in runs of backend::row_chunk modes (stage_run; one a GPU thread, in the order of the flat
/// mode index), one launch per stage number, a constant in the kernel.
template <int stages, int s, class T, class R>
void launch_stage_number(const Grid& g, const R& rhs, const StageArgs<T>& a, const NextInputs<T>& next) {
  const Grid::ModeBox b = g.mode_box();
  backend::parallel_for_row_chunks<backend::BoxLaunch::grid_stride>(
      stages == 3 ? "spectral::rk3_stage" : "spectral::rk4_stage", b.nx, b.ny, b.nz,
      [=] EDDY_DEVICE(index_t x0, index_t count, index_t y, index_t z) {
        stage_run<stages, s, backend::row_chunk>(ModeRun::at(g, x0, count, y, z), g, rhs, a, next);
      });
}
template <int stages, class T, class R>
void launch_stage(int s, const Grid& g, const R& rhs, const StageArgs<T>& a, const NextInputs<T>& next) {
  if (s == 1) {
    launch_stage_number<stages, 1>(g, rhs, a, next);
  } else if (s == 2) {
    launch_stage_number<stages, 2>(g, rhs, a, next);
  } else if (s == 3) {
    launch_stage_number<stages, 3>(g, rhs, a, next);
  } else {
    if constexpr (stages == 4) launch_stage_number<4, 4>(g, rhs, a, next);
  }
}

/// Physical fields (double, components adjacent) -> solver fields (T, component arrays rs apart).
template <class T>
void launch_split_components(const Grid& g, const double* in, int comps, T* out, index_t rs) {
  backend::parallel_for("spectral::split_components", g.points(), [=] EDDY_DEVICE(index_t i) {
    for (int d = 0; d < comps; ++d) out[i + d * rs] = T(in[i * comps + d]);
  });
}

/// The velocity field `f` (anything with an EDDY_HD Real3 velocity(const Real3& x)) sampled at the cell
/// centres (i_d + 1/2) dx_d of this rank's physical block, written as solver fields (T, component arrays rs
/// apart, `comps` of them): point i of the block is x + nx (y_local + ny_local z_local) in 3D (y = y0 +
/// y_local, z = a0 + z_local; grid.hpp), x + nx y_local in 2D (y = a0 + y_local). The coordinates are the
/// same double expressions the host-built arrays use, so the samples are the same numbers.
template <class T, class F>
void launch_sample_velocity(const Grid& g, const Real3& dx, const F& f, int comps, T* out, index_t rs) {
  const double hx = dx[0], hy = dx[1], hz = dx[2];
  backend::parallel_for("spectral::sample_velocity", g.points(), [=] EDDY_DEVICE(index_t i) {
    const index_t x = i % g.n[0], r = i / g.n[0];
    const index_t y = g.dims == 3 ? g.y0 + r % g.ny_local : g.a0 + r;
    const index_t z = g.dims == 3 ? g.a0 + r / g.ny_local : 0;
    const Real3 v = f.velocity(Real3{(x + 0.5) * hx, (y + 0.5) * hy, (z + 0.5) * hz});
    for (int d = 0; d < comps; ++d) out[i + d * rs] = T(v[static_cast<std::size_t>(d)]);
  });
}

/// Solver fields -> physical fields: the `comps` fields of `in` (rs apart) as one array of `n` points,
/// components adjacent, in double; point t is at[t] of this rank's slab, or t itself without a list
/// (`at` null).
template <class T>
void launch_join_components(const T* in, index_t rs, int comps, const index_t* at, index_t n, double* out) {
  backend::parallel_for(at ? "spectral::join_components_at" : "spectral::join_components", n,
                        [=] EDDY_DEVICE(index_t t) {
                          const index_t i = at ? at[t] : t;
                          for (int d = 0; d < comps; ++d) out[t * comps + d] = double(in[i + d * rs]);
                        });
}

/// One sample of the `comps` physical fields of `in` (rs apart) at every point added to running sums: as
/// the velocity (`vorticity` false) or the vorticity.
template <class T>
void launch_add_moments(const T* in, index_t rs, int comps, index_t n, field::MomentView m, bool vorticity) {
  backend::parallel_for("spectral::add_moments", n, [=] EDDY_DEVICE(index_t i) {
    double v[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < comps; ++d) v[d] = double(in[i + d * rs]);
    if (vorticity)
      m.add_vorticity(i, v);
    else
      m.add_flow(i, 0.0, v);
  });
}

/// The state from the forward transform of a velocity (f, unnormalised): 2D vorticity, 3D projection.
template <class T>
void launch_state_from_velocity(const Grid& g, const Complex<T>* f, index_t cs, T scale, Complex<T>* state) {
  backend::parallel_for("spectral::state_from_velocity", g.modes(), [=] EDDY_DEVICE(index_t m) {
    const Mode<T> md = Mode<T>::at(g, m);
    if (g.dims == 2) {
      state[m] = vorticity_2d(md, f[m], f[m + cs], scale);
    } else {
      const Complex<T> v[3] = {f[m], f[m + cs], f[m + 2 * cs]};
      Complex<T> p[3];
      project_3d(md, v, scale, true, p);
      for (int d = 0; d < 3; ++d) state[m + d * cs] = p[d];
    }
  });
}

template <class T>
void launch_random_spectrum(const Grid& g, const RandomSpectrum& r, Complex<T>* state, index_t cs) {
  backend::parallel_for("spectral::random_spectrum", g.modes(), [=] EDDY_DEVICE(index_t m) {
    Complex<T> v[3];
    random_mode(g, m, r, v);
    for (int d = 0; d < (g.dims == 2 ? 1 : 3); ++d) state[m + d * cs] = v[d];
  });
}

/// Component arrays (cs apart) <-> modes with their components adjacent (checkpoint layout). Back into
/// the state, the modes outside the dealiasing mask become zero (a checkpoint of another truncation).
template <class T>
void launch_interleave(const Grid& g, Complex<T>* fields, index_t cs, int comps, Complex<T>* out, bool back) {
  backend::parallel_for("spectral::interleave", g.modes(), [=] EDDY_DEVICE(index_t m) {
    if (back && !Mode<T>::at(g, m).kept) {
      zero_mode(fields, m, cs, comps);
      return;
    }
    for (int d = 0; d < comps; ++d) {
      if (back)
        fields[m + d * cs] = out[m * comps + d];
      else
        out[m * comps + d] = fields[m + d * cs];
    }
  });
}

template <class T>
SpectralSums reduce_spectral_sums(const Grid& g, const Complex<T>* s, index_t cs, const Linear<T>& lin,
                                  const Forcing& f) {
  return backend::parallel_reduce(
      "spectral::spectral_sums", g.modes(), SpectralSums{0, 0, 0, 0, 0},
      [=] EDDY_DEVICE(index_t m) { return spectral_sums(Mode<T>::at(g, m), g, s, m, cs, lin, f); },
      SpectralSumsOp{});
}

struct SumOp {
  EDDY_HD double operator()(double a, double b) const { return a + b; }
};

template <class T>
double reduce_band_energy(const Grid& g, const Complex<T>* s, index_t cs, const Forcing& f) {
  return backend::parallel_reduce(
      "spectral::band_energy", g.modes(), 0.0,
      [=] EDDY_DEVICE(index_t m) { return band_energy(Mode<T>::at(g, m), g.dims, s, m, cs, f); }, SumOp{});
}

/// The energy of local mode m of the state (navier_stokes_k.hpp: mode_energy), for the shell sums.
template <class T>
struct StateEnergy {
  const Complex<T>* s;
  index_t cs;
  int dims;
  EDDY_HD double operator()(const Mode<T>& md, index_t m) const { return mode_energy(md, dims, s, m, cs); }
};

/// Entries of the velocity gradient A_ij = du_i/dx_j (3D): for t < n, field t of `out` is i k_j u_i for the
/// pair (i[t], j[t]) (zero outside the mask, where u is).
struct GradientEntries {
  int n = 0;
  int i[5] = {0, 0, 0, 0, 0}, j[5] = {0, 0, 0, 0, 0};
};

template <class T>
void launch_gradients_3d(const Grid& g, const Complex<T>* u, const GradientEntries& e, Complex<T>* out,
                         index_t cs) {
  backend::parallel_for("spectral::gradients_3d", g.modes(), [=] EDDY_DEVICE(index_t m) {
    const Mode<T> md = Mode<T>::at(g, m);
    for (int t = 0; t < e.n; ++t) out[m + t * cs] = times_i(md.k[e.j[t]] * u[m + e.i[t] * cs]);
  });
}

/// The Q-criterion Q = (|Omega|^2 - |S|^2) / 2 = -A_ij A_ji / 2 (S, Omega the symmetric and antisymmetric
/// parts of A) in two passes over the physical gradient entries in p (fields rs apart), the sum kept in
/// field 4: first (`first`) fields A11 A22 A33 A12 A21 -> -(A11^2 + A22^2 + A33^2) / 2 - A12 A21 (A21, field
/// 4, read before it is overwritten), then fields A13 A31 A23 A32: minus A13 A31 + A23 A32.
template <class T>
void launch_q_criterion(const Grid& g, T* p, index_t rs, bool first) {
  backend::parallel_for("spectral::q_criterion", g.points(), [=] EDDY_DEVICE(index_t i) {
    const T a = p[i], b = p[i + rs], c = p[i + 2 * rs], d = p[i + 3 * rs], e = p[i + 4 * rs];
    p[i + 4 * rs] = first ? -T(0.5) * (a * a + b * b + c * c) - d * e : e - (a * b + c * d);
  });
}

struct MomentSums {
  double m2[3], m3[3];
};
struct MomentSumsOp {
  EDDY_HD MomentSums operator()(const MomentSums& a, const MomentSums& b) const {
    MomentSums r;
    for (int d = 0; d < 3; ++d) r.m2[d] = a.m2[d] + b.m2[d], r.m3[d] = a.m3[d] + b.m3[d];
    return r;
  }
};

template <class T>
MomentSums reduce_moments(const Grid& g, const T* p, index_t rs) {
  return backend::parallel_reduce(
      "spectral::gradient_moments", g.points(), MomentSums{{0, 0, 0}, {0, 0, 0}},
      [=] EDDY_DEVICE(index_t i) {
        MomentSums r;
        for (int d = 0; d < 3; ++d) {
          const double v = double(p[i + d * rs]);
          r.m2[d] = v * v, r.m3[d] = v * v * v;
        }
        return r;
      },
      MomentSumsOp{});
}

template <class T>
PointMax reduce_point_max(const Grid& g, const T* u, index_t rs) {
  return backend::parallel_reduce(
      "spectral::point_max", g.points(), PointMax{0, {0, 0, 0}, 0},
      [=] EDDY_DEVICE(index_t i) { return point_max(i, g.dims, u, rs); }, PointMaxOp{});
}

template <class T>
class SolverImpl final : public Solver {
  using C = Complex<T>;

 public:
  SolverImpl(const Setup& s, field::TransposeExchange& ex)
      : setup_(s),
        ex_(ex),
        grid_(Grid::make(s.dims, s.cells, s.length, ex, s.dealiasing == Dealiasing::phase_shift)),
        fft_(grid_, ex, s.overlap),
        comps_(s.dims == 2 ? 1 : 3),
        inputs_(stage_inputs(s.dims)),
        products_(stage_products(s.dims)),
        work_fields_(std::max(inputs_, products_)) {
    lin_.nu = T(s.nu);
    lin_.nu_h = T(s.hyperviscosity);
    lin_.p = s.hyperviscosity_order;
    lin_.mu = T(s.drag);
    cs_ = fft_.complex_stride();
    rs_ = fft_.real_stride();
    const auto spec = [&](int fields) { return static_cast<std::size_t>(cs_ * fields); };
    u_.resize(spec(comps_), spec(1));
    acc_.resize(spec(comps_), spec(1));
    // The stage value is kept only where something reads it back (step: NextInputs).
    if (s.stepper == Stepper::rk3 || s.forcing.kind == Forcing::band_limited)
      x_.resize(spec(comps_), spec(1));
    w_.resize(spec(work_fields_), spec(1));
    p_.resize(static_cast<std::size_t>(rs_ * work_fields_), static_cast<std::size_t>(rs_));
  }

  void set_velocity(const std::vector<double>& u) override {
    ready_ = false;
    const index_t n = grid_.points();
    if (static_cast<index_t>(u.size()) != n * setup_.dims)
      throw Error("spectral::Solver::set_velocity: expected " + std::to_string(n * setup_.dims) +
                  " values, got " + std::to_string(u.size()));
    {
      DeviceArray<double> d;
      d.from_host(u);
      launch_split_components(grid_, d.data(), setup_.dims, p_.data(), rs_);
    }
    state_from_physical_velocity();
  }

  void set_taylor_green(const field::TaylorGreen& tg) override {
    if (tg.dims != setup_.dims)
      throw Error("spectral::Solver::set_taylor_green: a " + std::to_string(tg.dims) + "D field for a " +
                  std::to_string(setup_.dims) + "D solver");
    ready_ = false;
    Real3 dx{0.0, 0.0, 0.0};
    for (std::size_t d = 0; d < static_cast<std::size_t>(setup_.dims); ++d)
      dx[d] = setup_.length[d] / double(setup_.cells[d]);
    launch_sample_velocity(grid_, dx, tg, setup_.dims, p_.data(), rs_);
    state_from_physical_velocity();
  }

  void set_rest() override {
    ready_ = false;
    backend::fill_zero(u_.data(), u_.bytes());
    steps_ = 0;
  }

  void set_random_spectrum(const RandomSpectrum& r) override {
    ready_ = false;
    launch_random_spectrum(grid_, r, u_.data(), cs_);
    steps_ = 0;
  }

  /// One step, and what it moves through memory (in whole fields of N numbers read or written, 3D RK4;
  /// the transforms excluded). Per stage s, transform inputs of x_s -> 3 backward transforms (u) -> the
  /// traceless products u_i u_j - delta_ij u_z u_z (read 3, write 5) -> 5 forward transforms -> stage
  /// update (navier_stokes_k.hpp), which writes the next stage's transform inputs itself instead of
  /// storing x_{s+1} for a separate pass to read; the last stage writes those of the next step's stage 1.
  /// Only a fraction f of the modes is kept by the truncation (2/3 rule: (2/3)^3, 0.295 at 512^3; phase
  /// shifts: the sphere, 0.44); the others' u, acc and x are zero and stay so (the nonlinear term is zero
  /// there; set_velocity, set_random_spectrum and load_state leave them zero), so the update reads and
  /// writes the state at the kept modes alone and only writes the zeros of the inputs elsewhere (the
  /// backward transforms destroy them). The classical rotational form (6 backward: u, omega; u x omega,
  /// read 6 write 3; 3 forward) moves more, as its inputs are written at every mode and its products read
  /// at the kept ones, and it runs 9 transforms a stage where this runs 8:
  ///            unfused, rotational          fused, rotational     fused, kept modes only
  ///                                                               rotational   traceless divergence
  ///   inputs   read 3, write 6 = 9/stage    0 (9 on the first     0 (3f + 6)   0 (3f + 3)
  ///                                          step, after output)
  ///   update   s1: raw 3, u 3 -> acc 3,     s1: 15 (x 3 ->        9f + 6       11f + 3
  ///                x 3 = 12                  inputs 6)
  ///            s2,3: + acc 3 = 15           s2,3: 18              12f + 6      14f + 3
  ///            s4: raw, u, acc -> u = 12    s4: 18                12f + 6      14f + 3
  ///   products 4 x 9 = 36                   36                    36           4 x 8 = 32
  ///   step     126                          105                   60 + 45f     44 + 53f: 60 (2/3 rule),
  ///                                                               = 73         67 (phase shifts; 80)
  /// 2D RK4 (omega; inputs u, v, omega_x, omega_y; product read 4, write 1): 58 unfused, 51 fused, now
  /// 36 + 15f with f = 4/9 (2/3 rule): 43 (-16%); phase shifts (the disc, f = 0.70): 46. The 1/N scale,
  /// the mask and the phase shifts are folded into the update (the Rhs functors) and the inputs. RK4
  /// without the band-limited force keeps no x_ (3 fields less memory). What remains is structural: the
  /// product pass must read 3 (4) fields and write 5 (1) at every point, and each stage write the 3 (4)
  /// inputs the backward transforms destroy; going below needs the pointwise work inside the transforms
  /// (cuFFT callbacks: slower on an H200, scripts/experiments/cufft_masked_load). The transforms
  /// themselves skip the lines outside the mask's box (products(): Modes::kept, slab_fft.hpp).
  void step(double dt) override {
    // The step's device work as a graph (backend/graph.hpp): recorded once per slot and replayed while
    // dt stays the same. What the launches take by value besides dt: phase shifts (the parity of the
    // step under RK3) and whether stage 1's inputs must be formed first (ready_): the slot. Only where
    // nothing in the step waits for the host: one rank (the transposes of several go through MPI) and no
    // band-limited force (its coefficient is a reduction each stage).
    const bool band = setup_.forcing.kind == Forcing::band_limited;
    const int parity =
        setup_.stepper == Stepper::rk3 && setup_.dealiasing == Dealiasing::phase_shift ? int(steps_ % 2) : 0;
    const auto work = [this, dt, parity] { stages(dt, parity); };
    if (ex_.ranks() == 1 && !band) {
      std::uint64_t stamp = 0;
      static_assert(sizeof stamp == sizeof dt);
      std::memcpy(&stamp, &dt, sizeof dt);
      graph_.run(parity * 2 + (ready_ ? 1 : 0), stamp, work);
    } else {
      work();
    }
    ready_ = true;
    ++steps_;
  }

  void set_graphs(bool on) override { graph_.set_enabled(on); }
  int graph_recordings() const override { return graph_.recordings(); }

  long steps() const override { return steps_; }

  void velocity(std::vector<double>& u) override {
    physical_velocity();
    join(setup_.dims, p_.data(), u);
  }

  void vorticity(std::vector<double>& w) override { join(physical_vorticity(), p_.data(), w); }

  void velocity_at(const std::vector<index_t>& points, std::vector<double>& u) override {
    physical_velocity();
    join(setup_.dims, p_.data(), u, &points);
  }

  void vorticity_at(const std::vector<index_t>& points, std::vector<double>& w) override {
    join(physical_vorticity(), p_.data(), w, &points);
  }

  void q_criterion(std::vector<double>& q) override { join(1, physical_q_criterion(), q); }

  void q_criterion_at(const std::vector<index_t>& points, std::vector<double>& q) override {
    join(1, physical_q_criterion(), q, &points);
  }

  void add_moments(const field::MomentView& sums) override {
    if (sums.layout.velocity || sums.layout.stress) {
      physical_velocity();
      launch_add_moments(p_.data(), rs_, setup_.dims, grid_.points(), sums, false);
    }
    if (sums.layout.vorticity > 0) {
      const int comps = physical_vorticity();
      launch_add_moments(p_.data(), rs_, comps, grid_.points(), sums, true);
    }
  }

  Stats stats() override {
    const SpectralSums s = reduce_spectral_sums(grid_, u_.data(), cs_, lin_, setup_.forcing);
    physical_velocity();
    const PointMax pm = reduce_point_max(grid_, p_.data(), rs_);
    double sums[6] = {s.energy, s.enstrophy, s.loss, pm.nonfinite, s.band, s.power};
    ex_.sum(sums, 6);
    Stats st;
    st.kinetic_energy = sums[0];
    st.enstrophy = sums[1];
    st.dissipation = 2.0 * setup_.nu * sums[1];
    st.energy_loss = sums[2];
    st.nonfinite = sums[3];
    st.band_energy = sums[4];
    st.injection =
        setup_.forcing.kind == Forcing::band_limited ? (sums[4] > 0 ? setup_.forcing.rate : 0.0) : sums[5];
    st.max_velocity = ex_.max(pm.speed);
    for (int d = 0; d < 3; ++d) st.max_component[d] = ex_.max(pm.comp[d]);
    if (!std::isfinite(st.kinetic_energy)) st.nonfinite = std::max(st.nonfinite, 1.0);
    return st;
  }

  Spectrum spectrum() override {
    return shell_spectrum<T>(grid_, StateEnergy<T>{u_.data(), cs_, grid_.dims}, ex_);
  }

  GradientMoments gradient_moments() override {
    ready_ = false;
    GradientMoments gm;
    if (grid_.dims != 3) return gm;
    launch_gradients_3d(grid_, u_.data(), GradientEntries{3, {0, 1, 2}, {0, 1, 2}}, w_.data(), cs_);
    fft_.backward(w_.data(), p_.data(), 3, Modes::kept);
    const MomentSums ms = reduce_moments(grid_, p_.data(), rs_);
    double v[6];
    for (int d = 0; d < 3; ++d) v[d] = ms.m2[d], v[3 + d] = ms.m3[d];
    ex_.sum(v, 6);
    const double n = double(grid_.total_points());
    for (int d = 0; d < 3; ++d) gm.m2[d] = v[d] / n, gm.m3[d] = v[3 + d] / n;
    return gm;
  }

  void transforms_of_step(bool zero_first, bool pruned) override {
    ready_ = false;
    if (zero_first) {
      backend::fill_zero(w_.data(), w_.bytes());
      backend::fill_zero(p_.data(), p_.bytes());
    }
    const Modes modes = pruned ? Modes::kept : Modes::all;  // zeros in, zeros out: the contract holds
    // The floor: as many backward transforms as make up the classical stage's count (3D 4 + 5 = 9, in
    // the buffers the step has; 2D the step's 4 + 1).
    const int backward = pruned ? inputs_ : classical_per_stage() - products_;
    for (int s = 0; s < stage_count(); ++s) {
      fft_.backward(w_.data(), p_.data(), backward, modes);
      fft_.forward(p_.data(), w_.data(), products_, modes);
    }
  }

  int transforms_per_step() const override { return stage_count() * (inputs_ + products_); }
  int floor_transforms_per_step() const override { return stage_count() * classical_per_stage(); }

  std::vector<unsigned char> save_state() override {
    DeviceArray<C> d(static_cast<std::size_t>(grid_.modes() * comps_));
    launch_interleave(grid_, u_.data(), cs_, comps_, d.data(), false);
    const std::vector<C> h = d.to_host();
    const auto* b = reinterpret_cast<const unsigned char*>(h.data());
    return {b, b + h.size() * sizeof(C)};
  }

  void load_state(const std::vector<unsigned char>& block, long step) override {
    ready_ = false;
    std::vector<C> h(static_cast<std::size_t>(grid_.modes() * comps_));
    if (block.size() != h.size() * sizeof(C))
      throw Error("spectral::Solver::load_state: expected " + std::to_string(h.size() * sizeof(C)) +
                  " bytes, got " + std::to_string(block.size()));
    std::copy(block.begin(), block.end(), reinterpret_cast<unsigned char*>(h.data()));
    DeviceArray<C> d;
    d.from_host(h);
    launch_interleave(grid_, u_.data(), cs_, comps_, d.data(), true);
    steps_ = step;
  }

  int state_values() const override { return 2 * comps_; }
  int state_bytes() const override { return static_cast<int>(sizeof(T)); }
  const Grid& grid() const override { return grid_; }
  const Setup& setup() const override { return setup_; }
  std::size_t bytes_allocated() const override {
    return u_.bytes() + acc_.bytes() + x_.bytes() + w_.bytes() + p_.bytes() + fft_.bytes();
  }

 private:
  Rhs2d<T> rhs2d(bool shifted, const C* x) { return {w_.data(), scale(), shifted, force(x)}; }
  Rhs3d<T> rhs3d(bool shifted, const C* x) { return {w_.data(), cs_, scale(), shifted, force(x)}; }

  /// The force on stage value x; band_limited: c = eps / (2 E_b(x)), E_b summed over the ranks.
  ForceTerm<T> force(const C* x) {
    ForceTerm<T> f{setup_.forcing, T(0), x, cs_};
    if (setup_.forcing.kind == Forcing::band_limited) {
      double eb = reduce_band_energy(grid_, x, cs_, setup_.forcing);
      ex_.sum(&eb, 1);
      f.c = eb > 0 ? T(setup_.forcing.rate / (2.0 * eb)) : T(0);
    }
    return f;
  }
  T scale() const { return T(1.0 / double(grid_.total_points())); }
  int stage_count() const { return rk_stages(setup_.stepper); }
  /// Transforms per stage of the classical step (transforms_of_step's floor).
  int classical_per_stage() const { return grid_.dims == 3 ? 9 : 5; }

  /// The stages of one step of dt: device work only (launches and transforms; no host state changes),
  /// so that step() can record it. `parity`: the step's parity where RK3 alternates phase shifts.
  void stages(double dt, int parity) {
    StageArgs<T> a{u_.data(), acc_.data(), x_.data(), cs_, T(dt), lin_};
    // The stage value whose nonlinear term (and force) a stage evaluates: u at stage 1, x after.
    // Phase shifts (when on): RK4 shifts stages 2 and 4, whose weights in the step (1/3, 1/6) cancel the
    // singly aliased errors of stages 3 and 1 (1/3, 1/6); RK3 shifts every other step.
    // Stage 1's inputs are in w_ already when the last step left them there (ready_).
    const bool shifting = setup_.dealiasing == Dealiasing::phase_shift;
    const bool band = setup_.forcing.kind == Forcing::band_limited;
    if (setup_.stepper == Stepper::rk3) {
      const bool shifted = shifting && parity == 1;
      if (!ready_) inputs(u_.data(), shifted);
      for (int s = 1; s <= 3; ++s) {
        const C* x = s == 1 ? u_.data() : x_.data();
        products();
        const bool next_shifted = s < 3 ? shifted : shifting && parity == 0;
        const NextInputs<T> next{w_.data(), cs_, next_shifted, (band && s < 3) || s == 2};
        grid_.dims == 2 ? launch_stage<3>(s, grid_, rhs2d(shifted, x), a, next)
                        : launch_stage<3>(s, grid_, rhs3d(shifted, x), a, next);
      }
    } else {
      if (!ready_) inputs(u_.data(), false);
      for (int s = 1; s <= 4; ++s) {
        const bool shifted = shifting && s % 2 == 0;
        const C* x = s == 1 ? u_.data() : x_.data();
        products();
        const NextInputs<T> next{w_.data(), cs_, shifting && s % 2 == 1 && s < 4, band && s < 4};
        grid_.dims == 2 ? launch_stage<4>(s, grid_, rhs2d(shifted, x), a, next)
                        : launch_stage<4>(s, grid_, rhs3d(shifted, x), a, next);
      }
    }
  }

  /// The inputs of the backward transforms of the nonlinear term of state `s` into w_, formed on the grid
  /// shifted by half a cell when `shifted` (later stages' inputs come from the stage updates: NextInputs).
  void inputs(const C* s, bool shifted) {
    launch_inputs(grid_, s, NextInputs<T>{w_.data(), cs_, shifted, false});
  }

  /// The transform of the nonlinear products of the inputs in w_ (2D u, v, omega_x, omega_y -> u.grad
  /// omega; 3D u -> the traceless u_i u_j), into w_ (unnormalised; the Rhs functors finish it). Pruned
  /// (slab_fft.hpp): every writer of the inputs (inputs(), NextInputs) writes every mode, zeros outside the
  /// mask, and the stage kernels read the products at the kept modes only.
  void products() {
    if (grid_.dims == 2) {
      fft_.backward(w_.data(), p_.data(), inputs_, Modes::kept);
      launch_advection_2d(grid_, p_.data(), rs_);
      fft_.forward(p_.data(), w_.data(), products_, Modes::kept);
    } else {
      fft_.backward(w_.data(), p_.data(), inputs_, Modes::kept);
      launch_products_3d(grid_, p_.data(), rs_);
      fft_.forward(p_.data(), w_.data(), products_, Modes::kept);
    }
  }

  /// The state from the physical velocity in p_ (dims fields, destroyed by the forward transform):
  /// projected (3D) or curled (2D), 2/3-truncated. Resets the step count.
  void state_from_physical_velocity() {
    fft_.forward(p_.data(), w_.data(), setup_.dims, Modes::kept);  // read at the kept modes only
    launch_state_from_velocity(grid_, w_.data(), cs_, T(1.0 / double(grid_.total_points())), u_.data());
    steps_ = 0;
  }

  /// The physical velocity of the state into p_ (dims fields). Pruned: the state is zero outside the mask
  /// (step()), and so are the inputs formed from it.
  void physical_velocity() {
    ready_ = false;
    if (grid_.dims == 2) {
      launch_inputs(grid_, u_.data(), NextInputs<T>{w_.data(), cs_, false, false});
      fft_.backward(w_.data(), p_.data(), 2, Modes::kept);
    } else {
      backend::copy_on_device(w_.data(), u_.data(), static_cast<std::size_t>(3 * cs_) * sizeof(C));
      fft_.backward(w_.data(), p_.data(), 3, Modes::kept);
    }
  }

  /// The physical vorticity of the state into p_: one field in 2D, three in 3D (returned).
  int physical_vorticity() {
    ready_ = false;
    if (grid_.dims == 2) {
      backend::copy_on_device(w_.data(), u_.data(), static_cast<std::size_t>(cs_) * sizeof(C));
      fft_.backward(w_.data(), p_.data(), 1, Modes::kept);  // the state is zero outside the mask
      return 1;
    }
    launch_vorticity_3d(grid_, u_.data(), w_.data(), cs_);
    fft_.backward(w_.data(), p_.data(), 3, Modes::kept);
    return 3;
  }

  /// The physical Q-criterion of the state (3D) into p_'s field 4 (returned): the 9 entries of the
  /// velocity gradient, 5 and then 4 backward transforms (w_ and p_ hold 5 fields), summed pointwise.
  const T* physical_q_criterion() {
    if (grid_.dims != 3) throw Error("spectral: the Q-criterion is a 3D field");
    ready_ = false;
    launch_gradients_3d(grid_, u_.data(), GradientEntries{5, {0, 1, 2, 0, 1}, {0, 1, 2, 1, 0}}, w_.data(),
                        cs_);
    fft_.backward(w_.data(), p_.data(), 5, Modes::kept);
    launch_q_criterion(grid_, p_.data(), rs_, true);
    launch_gradients_3d(grid_, u_.data(), GradientEntries{4, {0, 2, 1, 2}, {2, 0, 2, 1}}, w_.data(), cs_);
    fft_.backward(w_.data(), p_.data(), 4, Modes::kept);  // fields 0-3: field 4 keeps the first sum
    launch_q_criterion(grid_, p_.data(), rs_, false);
    return p_.data() + 4 * rs_;
  }

  /// The `comps` fields of `p` on the host, components adjacent: every point of this rank's slab, or the
  /// points `at` alone.
  void join(int comps, const T* p, std::vector<double>& out, const std::vector<index_t>* at = nullptr) const {
    const index_t n = at ? static_cast<index_t>(at->size()) : grid_.points();
    out.clear();
    if (n == 0) return;
    DeviceArray<double> d(static_cast<std::size_t>(n * comps));
    DeviceArray<index_t> points;
    if (at) points.from_host(*at);
    launch_join_components(p, rs_, comps, at ? points.data() : nullptr, n, d.data());
    out = d.to_host();
  }

  Setup setup_;
  field::TransposeExchange& ex_;
  Grid grid_;
  SlabFft<T> fft_;
  int comps_;
  int inputs_, products_;  // fields the backward (forward) transforms of a stage take: 2D 4 (1), 3D 3 (5)
  int work_fields_;        // the larger: fields of w_ and p_
  index_t cs_ = 0, rs_ = 0;
  Linear<T> lin_;
  DeviceArray<C> u_, acc_, x_, w_;  // state, accumulator, stage value, transform work (spectral)
  DeviceArray<T> p_;                // transform work (physical)
  long steps_ = 0;
  // w_ holds the inputs of the next step's stage 1 (step leaves them there; the rest reuse w_).
  bool ready_ = false;
  backend::StepGraph graph_;
};

}  // namespace

double Stats::cfl(double dt, const Real3& dx) const {
  double c = 0;
  for (int d = 0; d < 3; ++d)
    if (dx[static_cast<std::size_t>(d)] > 0) c += max_component[d] / dx[static_cast<std::size_t>(d)];
  return c * dt;
}

double GradientMoments::skewness() const {
  double s = 0;
  for (int d = 0; d < 3; ++d) s += m2[d] > 0 ? m3[d] / std::pow(m2[d], 1.5) / 3.0 : 0.0;
  return s;
}

Footprint footprint(const Setup& s, int p1, int p2, int packed_sides) {
  const int P = p1 * p2, comps = s.dims == 2 ? 1 : 3;
  const int work = std::max(stage_inputs(s.dims), stage_products(s.dims));
  const auto share = [](index_t n, int parts) { return (n + parts - 1) / parts; };  // the largest part
  const double t = s.precision == Precision::fp32 ? 4.0 : 8.0, c = 2.0 * t;
  Footprint f;
  const index_t nx = s.cells[0], ny = s.cells[1], nz = s.dims == 3 ? s.cells[2] : 1;
  f.points = s.dims == 3 ? nx * share(ny, p1) * share(nz, p2) : nx * share(ny, P);
  f.modes = s.dims == 3 ? share(nx / 2 + 1, p1) * share(ny, p2) * nz : share(nx / 2 + 1, P) * ny;
  const double points = double(f.points), modes = double(f.modes);
  // The state u, the RK accumulator, the stage value (RK3, band-limited forcing), the transform work in
  // wave-number space (w) and physical space (p).
  const bool stage_value = s.stepper == Stepper::rk3 || s.forcing.kind == Forcing::band_limited;
  f.device_bytes = c * modes * ((2 + (stage_value ? 1 : 0)) * comps + work) + t * points * work;
  // Several ranks: the a-slab buffer (and the pencils' y buffer) of every field transformed together.
  if (P > 1) f.device_bytes += c * modes * work * (p1 > 1 ? 2 : 1);
  // Temporaries: the velocity of a field output (double); the energy spectrum's lanes (spectrum()).
  double kk = 0, dk = 2 * M_PI / s.length[0];
  for (int d = 0; d < s.dims; ++d) dk = std::min(dk, 2 * M_PI / s.length[static_cast<std::size_t>(d)]);
  for (int d = 0; d < s.dims; ++d) {
    const double kd =
        2 * M_PI / s.length[static_cast<std::size_t>(d)] * double(s.cells[static_cast<std::size_t>(d)] / 2);
    kk += kd * kd;
  }
  const double shells = std::floor(std::sqrt(kk) / dk + 0.5) + 1;
  const double lanes = double(spectrum_lanes(f.modes, static_cast<index_t>(shells)));
  f.transient_bytes = std::max(sizeof(double) * s.dims * points, sizeof(double) * (lanes + 1) * shells);
  // Host: a field output (velocity and vorticity in double), the state of a checkpoint.
  f.host_bytes = std::max(sizeof(double) * (s.dims + (s.dims == 3 ? 3 : 1)) * points, c * modes * comps);
  const int stages = rk_stages(s.stepper);
  f.transforms_per_step = stages * (stage_inputs(s.dims) + stage_products(s.dims));
  // What a transpose moves (slab_fft.hpp): slabs the kept ky (2D: kx) rows of the 2/3 rule, 2/3 of a
  // field, and of those in 3D only the kept kx columns where the transport copies straight between the
  // layouts (one-sided peer copies: 4/9); the pencils' transposes and phase shifts move every mode.
  const bool pencil = s.dims == 3 && p1 > 1;
  const double kept = s.dealiasing != Dealiasing::two_thirds || pencil ? 1.0
                      : s.dims == 3 && packed_sides == 0               ? 4.0 / 9.0
                                                                       : 2.0 / 3.0;
  // Each exchange packs the a-slab side of the fields in flight (two, overlapped; else all of them) into
  // segments of its own (parallel/transpose.cpp), or both sides, or neither (one-sided copies).
  const double in_flight = s.overlap ? std::min(2, work) : work;
  for (const int group : pencil ? std::vector<int>{p1, p2} : std::vector<int>{P})
    if (group > 1) {
      const double moved = c * modes * kept * double(group - 1) / double(group);
      f.transposes.emplace_back(group, moved);
      f.device_bytes += in_flight * moved * packed_sides;
    }
  return f;
}

double cfl_limit(Stepper stepper, Dealiasing dealiasing) {
  const double radius = stepper == Stepper::rk3 ? std::sqrt(3.0) : 2.0 * std::sqrt(2.0);
  const double kmax_dx =
      2.0 * M_PI * (dealiasing == Dealiasing::phase_shift ? std::sqrt(2.0) / 3.0 : 1.0 / 3.0);
  return radius / kmax_dx;
}

std::unique_ptr<Solver> make_solver(const Setup& s, field::TransposeExchange& exchange) {
  if (s.dims != 2 && s.dims != 3)
    throw InputError("domain.cells: the spectral solver needs 2 or 3 dimensions");
  const Forcing& f = s.forcing;
  if (f.kind == Forcing::kolmogorov && (s.dims < 2 || f.mode < 1 || f.mode > (s.cells[1] - 1) / 3))
    throw InputError("physics.forcing.wavenumber: the Kolmogorov mode " + std::to_string(f.mode) +
                     " must be between 1 and the 2/3-rule limit " + std::to_string((s.cells[1] - 1) / 3) +
                     " of the y points");
  if (f.kind == Forcing::band_limited && !(f.rate > 0 && f.band[0] < f.band[1]))
    throw InputError(
        "physics.forcing: band_limited needs injection_rate > 0 and band [k_a, k_b] with k_a < k_b");
  switch (s.precision) {
    case Precision::fp64:
      return std::make_unique<SolverImpl<double>>(s, exchange);
    case Precision::fp32:
      return std::make_unique<SolverImpl<float>>(s, exchange);
    default:
      throw InputError("numerics.precision: the spectral solver runs in fp64 or fp32");
  }
}

}  // namespace eddy::spectral
