#pragma once
/// Pointwise pieces of the pseudo-spectral Navier-Stokes equations (no launches, no allocation).
///
/// Spectral fields hold normalised Fourier coefficients, f(x) = sum_k f_k exp(i k.x): the backward
/// transform gives physical values directly and a forward transform is scaled by 1/N. Arrays of
/// several fields are `cs` (spectral) or `rs` (physical) elements apart.
///
/// 2D, vorticity form:  d omega/dt = -u.grad omega - L omega,     lap psi = -omega, u = (psi_y, -psi_x)
/// 3D, divergence form: d u/dt     = -P(k) i k.FFT(u u - u_z^2 I) - L u,  P = I - k k / k^2 (below: why)
/// with the linear operator L(k) = nu k^2 + nu_h k^(2p) + mu (viscosity, hyperviscosity, linear drag),
/// which the time steppers integrate exactly (integrating factor, spectral/stepper_k.hpp).
/// Products are formed in physical space and the 2/3 rule (Orszag 1971) removes their aliases; or, with
/// phase-shift dealiasing, a spherical truncation plus products formed on a grid shifted by half a cell
/// in every direction in alternate stages, so that the singly aliased errors of those stages cancel in
/// the step (Patterson & Orszag 1971, Rogallo 1981). `phase` below is exp(i k.delta) of that shift, or 1.
#include <cmath>

#include "backend/fft.hpp"
#include "spectral/forcing_k.hpp"
#include "spectral/grid.hpp"

namespace eddy::spectral {

using backend::Complex;
using backend::select;
using backend::times_i;

/// L(k) = nu k^2 + nu_h (k^2)^p + mu.
template <class T>
struct Linear {
  T nu = 0, nu_h = 0, mu = 0;
  int p = 2;
  EDDY_HD EDDY_INLINE T operator()(T k2) const {
    T kp = T(1);
    for (int i = 0; i < p; ++i) kp *= k2;
    return nu * k2 + nu_h * kp + mu;
  }
};

// ------------------------------------------------------------------------------------------- 2D

/// The four spectral fields the 2D advection term needs, from omega: u = i ky psi, v = -i kx psi
/// (psi = omega / k^2), d omega/dx = i kx omega, d omega/dy = i ky omega.
template <class T>
EDDY_HD EDDY_INLINE void advection_inputs_2d(const Mode<T>& md, Complex<T> w, Complex<T> phase,
                                             Complex<T>* out, index_t m, index_t cs) {
  w = w * phase;
  const Complex<T> psi = md.inv_k2() * w;
  out[m] = times_i(md.k[1] * psi);
  out[m + cs] = times_i(-md.k[0] * psi);
  out[m + 2 * cs] = times_i(md.k[0] * w);
  out[m + 3 * cs] = times_i(md.k[1] * w);
}

/// u.grad omega at physical point i, from (u, v, omega_x, omega_y); written over u.
template <class T>
EDDY_HD EDDY_INLINE void advection_2d(index_t i, T* p, index_t rs) {
  p[i] = p[i] * p[i + 2 * rs] + p[i + rs] * p[i + 3 * rs];
}

/// What a nonlinear term (the Rhs functors below, D components) takes at one mode from the math library
/// (cos, sin) and from other arrays under a condition: exp(-i k.delta), which takes products formed on the
/// shifted grid back (1 where they were not), and the force (ForceTerm::at: its value and whether it
/// applies). Apart from the rest, so that a loop over modes can take these in a loop of its own and the
/// rest in vector lanes (spectral/stepper_k.hpp: stage_run), where each term forms its values and selects
/// among them instead of branching.
template <class T, int D>
struct RhsFactors {
  Complex<T> back;
  Complex<T> force[D];
  bool forced;
};

/// The factors of the Rhs functors below at local mode m.
template <class T, int D>
EDDY_HD EDDY_INLINE RhsFactors<T, D> rhs_factors(index_t m, const Mode<T>& md, const Grid& g, bool shifted,
                                                 const ForceTerm<T>& force) {
  RhsFactors<T, D> f;
  f.back = shifted && md.kept ? md.shift(g, -1) : Complex<T>{T(1), T(0)};
  f.forced = force.template at<D>(m, md, g, f.force);
  return f;
}

/// The nonlinear term of the 2D vorticity equation from raw = FFT(u.grad omega) (unnormalised):
/// -raw / N inside the 2/3 mask, plus the force; the mean (k = 0) stays exactly zero.
template <class T>
struct Rhs2d {
  static constexpr int comps = 1;
  const Complex<T>* raw;
  T scale;       ///< 1 / N
  bool shifted;  ///< products formed on the shifted grid
  ForceTerm<T> force;
  EDDY_HD EDDY_INLINE RhsFactors<T, 1> factors(index_t m, const Mode<T>& md, const Grid& g) const {
    return rhs_factors<T, 1>(m, md, g, shifted, force);
  }
  /// The term at local mode m, given the mode's factors().
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& md, const RhsFactors<T, 1>& f,
                                      Complex<T>* n) const {
    if (!md.kept) {  // nothing read outside the mask
      n[0] = {T(0), T(0)};
      return;
    }
    const Complex<T> r = raw[m], back = r * f.back;
    Complex<T> v[1] = {(-scale) * select(shifted, back, r)};
    force.template add<1>(f.forced, f.force, v);
    n[0] = select(md.k2 == T(0), Complex<T>{T(0), T(0)}, v[0]);
  }
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& md, const Grid& g, Complex<T>* n) const {
    (*this)(m, md, factors(m, md, g), n);
  }
};

/// Vorticity from a velocity given in spectral space: omega = i kx v - i ky u, 2/3-masked and scaled.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> vorticity_2d(const Mode<T>& md, Complex<T> u, Complex<T> v, T scale) {
  if (!md.kept) return {T(0), T(0)};
  return scale * (times_i(md.k[0] * v) - times_i(md.k[1] * u));
}

// ------------------------------------------------------------------------------------------- 3D

// The 3D nonlinear term is taken in divergence form with the trace of u u taken out,
// -P[div(u u - u_z^2 I)]: three backward transforms (u), five products (xx - zz, yy - zz, xy, yz, zx) and
// five forward transforms, 8 a stage. The isotropic part only adds the gradient grad(u_z^2), which P
// removes. The rotational form P[u x omega] takes 9 a stage (6 backward: u, omega; 3 forward) and moves
// more memory besides: every stage writes the backward transforms' inputs at every mode (zeros outside
// the mask included: the transforms destroy their input) but reads the forward ones at the kept modes
// only (2/3 rule: 30 % of them), so 3 inputs and 5 products move fewer fields than 6 and 3
// (spectral_solver.cpp: step()). With the 2/3 rule the forms agree to round-off: the truncated product of
// two band-limited fields is alias-free, and they differ by gradients, which P removes. With phase
// shifts they differ in their residual aliasing errors, of the same order.

/// The three spectral fields the 3D nonlinear term needs: u, times `phase` (u given by value).
template <class T>
EDDY_HD EDDY_INLINE void velocity_3d_of(const Complex<T> (&u)[3], Complex<T> phase, Complex<T>* out,
                                        index_t m, index_t cs) {
  for (int d = 0; d < 3; ++d) out[m + d * cs] = u[d] * phase;
}

/// omega = i k x u from the three component arrays of u (cs apart): the vorticity output.
template <class T>
EDDY_HD EDDY_INLINE void vorticity_3d(const Mode<T>& md, const Complex<T>* u, Complex<T>* out, index_t m,
                                      index_t cs) {
  const Complex<T> ux = u[m], uy = u[m + cs], uz = u[m + 2 * cs];
  out[m] = times_i(md.k[1] * uz - md.k[2] * uy);
  out[m + cs] = times_i(md.k[2] * ux - md.k[0] * uz);
  out[m + 2 * cs] = times_i(md.k[0] * uy - md.k[1] * ux);
}

/// The five products of the traceless tensor u_i u_j - delta_ij u_z u_z at physical point i, from u
/// (fields 0..2), written over fields 0..4 in the order xx - zz, yy - zz, xy, yz, zx.
template <class T>
EDDY_HD EDDY_INLINE void products_3d(index_t i, T* p, index_t rs) {
  const T ux = p[i], uy = p[i + rs], uz = p[i + 2 * rs];
  const T zz = uz * uz;
  p[i] = ux * ux - zz;
  p[i + rs] = uy * uy - zz;
  p[i + 2 * rs] = ux * uy;
  p[i + 3 * rs] = uy * uz;
  p[i + 4 * rs] = uz * ux;
}

/// Projection onto divergence-free fields, times s, inside the 2/3 mask: s (f - k (k.f) / k^2).
/// The mean (k = 0) is left as it is when `keep_mean`, else zeroed. Formed at every mode and selected (no
/// branch in a loop over modes).
template <class T>
EDDY_HD EDDY_INLINE void project_3d(const Mode<T>& md, const Complex<T>* f, T s, bool keep_mean,
                                    Complex<T>* out) {
  const bool zero = !md.kept || (md.k2 == T(0) && !keep_mean);
  Complex<T> kf = md.k[0] * f[0] + md.k[1] * f[1] + md.k[2] * f[2];
  kf = md.inv_k2() * kf;
  for (int d = 0; d < 3; ++d) {
    const Complex<T> p = s * (f[d] - md.k[d] * kf);
    out[d] = select(zero, Complex<T>{T(0), T(0)}, p);
  }
}

/// The nonlinear term of the 3D velocity equation, -P[i k_j (u_i u_j)^] / N, from raw = the transforms of
/// the five products (unnormalised; products_3d's order; the tensor's zz entry is zero). Momentum is
/// conserved exactly: the mean stays as it is. The force (divergence-free) is added after.
template <class T>
struct Rhs3d {
  static constexpr int comps = 3;
  const Complex<T>* raw;
  index_t cs;
  T scale;       ///< 1 / N
  bool shifted;  ///< products formed on the shifted grid
  ForceTerm<T> force;
  EDDY_HD EDDY_INLINE RhsFactors<T, 3> factors(index_t m, const Mode<T>& md, const Grid& g) const {
    return rhs_factors<T, 3>(m, md, g, shifted, force);
  }
  /// The term at local mode m, given the mode's factors().
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& md, const RhsFactors<T, 3>& fa,
                                      Complex<T>* n) const {
    Complex<T> t[6];  // xx, yy, xy, yz, zx, and zz = 0
    for (int j = 0; j < 5; ++j) {
      const Complex<T> r = raw[m + j * cs], back = r * fa.back;
      t[j] = select(shifted && md.kept, back, r);
    }
    t[5] = {T(0), T(0)};
    // row d of the symmetric tensor: (xx, xy, zx), (xy, yy, yz), (zx, yz, zz)
    constexpr int row[3][3] = {{0, 2, 4}, {2, 1, 3}, {4, 3, 5}};
    Complex<T> f[3];
    for (int d = 0; d < 3; ++d) {
      const Complex<T> kt = md.k[0] * t[row[d][0]] + md.k[1] * t[row[d][1]] + md.k[2] * t[row[d][2]];
      f[d] = times_i(T(-1) * kt);
    }
    project_3d(md, f, scale, false, n);
    force.template add<3>(fa.forced, fa.force, n);
  }
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>& md, const Grid& g, Complex<T>* n) const {
    (*this)(m, md, factors(m, md, g), n);
  }
};

// ------------------------------------------------------------------------------------------- diagnostics

/// Sums over the spectrum (volume averages, by Parseval): kinetic energy <|u|^2>/2, enstrophy
/// <|omega|^2>/2, the energy loss rate of the linear terms sum 2 L(k) E_k, the energy of the forced band
/// and the power of a fixed (Kolmogorov) force.
/// (Aggregates without member initialisers: GPU reductions keep them in shared memory.)
struct SpectralSums {
  double energy, enstrophy, loss, band, power;
};
struct SpectralSumsOp {
  EDDY_HD SpectralSums operator()(const SpectralSums& a, const SpectralSums& b) const {
    return {a.energy + b.energy, a.enstrophy + b.enstrophy, a.loss + b.loss, a.band + b.band,
            a.power + b.power};
  }
};

/// Energy of local mode m of the state (2D: omega; 3D: u), Hermitian weight included.
template <class T>
EDDY_HD EDDY_INLINE double mode_energy(const Mode<T>& md, int dims, const Complex<T>* s, index_t m,
                                       index_t cs) {
  const double w = md.weight;
  if (dims == 2) return md.k2 > T(0) ? 0.5 * w * double(backend::norm2(s[m])) / double(md.k2) : 0.0;
  return 0.5 * w *
         (double(backend::norm2(s[m])) + double(backend::norm2(s[m + cs])) +
          double(backend::norm2(s[m + 2 * cs])));
}

/// Energy of local mode m if the force's band holds it (and the 2/3 mask keeps it), else 0.
template <class T>
EDDY_HD EDDY_INLINE double band_energy(const Mode<T>& md, int dims, const Complex<T>* s, index_t m,
                                       index_t cs, const Forcing& f) {
  return md.kept && f.in_band(double(md.k2)) ? mode_energy(md, dims, s, m, cs) : 0.0;
}

/// Contribution of local mode m of the state (2D: omega; 3D: u).
template <class T>
EDDY_HD EDDY_INLINE SpectralSums spectral_sums(const Mode<T>& md, const Grid& g, const Complex<T>* s,
                                               index_t m, index_t cs, const Linear<T>& lin,
                                               const Forcing& f) {
  const int dims = g.dims;
  const double w = md.weight;
  const double e = mode_energy(md, dims, s, m, cs);
  double z = 0;
  if (dims == 2) {
    z = 0.5 * w * double(backend::norm2(s[m]));
  } else {
    const Complex<T> ux = s[m], uy = s[m + cs], uz = s[m + 2 * cs];
    const Complex<T> wx = md.k[1] * uz - md.k[2] * uy, wy = md.k[2] * ux - md.k[0] * uz,
                     wz = md.k[0] * uy - md.k[1] * ux;  // omega / i
    z = 0.5 * w * (double(backend::norm2(wx)) + double(backend::norm2(wy)) + double(backend::norm2(wz)));
  }
  return {e, z, 2.0 * double(lin(md.k2)) * e, band_energy(md, dims, s, m, cs, f),
          kolmogorov_power(f, g, md, s, m, cs)};
}

/// Maxima over physical points: |u|, |u_x|, |u_y|, |u_z|, and the count of non-finite values.
struct PointMax {
  double speed, comp[3], nonfinite;
};
struct PointMaxOp {
  EDDY_HD PointMax operator()(const PointMax& a, const PointMax& b) const {
    PointMax r{0, {0, 0, 0}, 0};
    r.speed = a.speed > b.speed ? a.speed : b.speed;
    for (int d = 0; d < 3; ++d) r.comp[d] = a.comp[d] > b.comp[d] ? a.comp[d] : b.comp[d];
    r.nonfinite = a.nonfinite + b.nonfinite;
    return r;
  }
};

template <class T>
EDDY_HD EDDY_INLINE PointMax point_max(index_t i, int dims, const T* u, index_t rs) {
  PointMax r{0, {0, 0, 0}, 0};
  double s2 = 0;
  for (int d = 0; d < dims; ++d) {
    const double v = double(u[i + d * rs]);
    s2 += v * v;
    r.comp[d] = v < 0 ? -v : v;
  }
  if (!(s2 < 1e300)) {  // NaN or Inf
    r.nonfinite = 1;
    s2 = 0;
    for (int d = 0; d < 3; ++d) r.comp[d] = 0;
  }
  r.speed = std::sqrt(s2);
  return r;
}

}  // namespace eddy::spectral
