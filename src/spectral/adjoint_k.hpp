#pragma once
/// Pointwise pieces of the discrete adjoint of the 2D vorticity solver (no launches, no allocation).
///
/// Inner product. Spectral fields are half spectra (kx >= 0) of real fields; the product
///   <a, b> = sum_m w_m Re(conj(a_m) b_m),   w_m = Grid::weight (2 for 0 < kx < nx/2, else 1),
/// equals the physical mean <a(x) b(x)> of the fields (Parseval). Under it the normalised forward
/// transform F (r2c / N) and the backward transform F^-1 (c2r) are each other's transposes (F^-1 sees only
/// the Hermitian part of its input, an orthogonal projection, so this holds for every input); real diagonal
/// factors (E = exp(-L h), the 2/3 mask, 1/k^2) are symmetric and i k is antisymmetric: (i k)^T = -i k.
///
/// Nonlinear term (navier_stokes_k.hpp): N(w) = -P F(u . grad omega) with u = F^-1(i ky/k^2, -i kx/k^2) w,
/// grad omega = F^-1(i kx, i ky) w and P the 2/3 mask without k = 0. It is quadratic, so its linearisation
/// at w is N'(w) d = -P F(u(w) . grad d + u(d) . grad omega(w)) = (N(w + d) - N(w - d)) / 2 exactly, and
/// with mu = F^-1(-P y) (a physical field):
///   N'(w)^T y = -i kx F(u mu) - i ky F(v mu) - (i ky / k^2) F(omega_x mu) + (i kx / k^2) F(omega_y mu).
///
/// Steps (stepper_k.hpp): each RK stage is linear in (u, acc, n_s) with real per-mode coefficients; the
/// reverse stages below transpose them, stage 4 (RK4) / 3 (RK3) first. `a` is the adjoint of the step's
/// result, `ub` collects the adjoint of its start, `xb` holds the adjoint of the stage value the later
/// stage read (from N'^T), `nb` receives the adjoint of the stage's nonlinear term. The viscosity
/// derivative of every coefficient (dL/dnu = k^2: dE = -k^2 h E, dE2 = -k^2 h/2 E2, and RK3's
/// exp(+L h/2) grows with +k^2 h/2) gives the stage's share of dJ/dnu.
#include <cmath>

#include "spectral/stepper_k.hpp"

namespace eddy::spectral {

/// A nonlinear term that has been evaluated already (the stage kernels' R, stepper_k.hpp).
template <class T>
struct GivenRhs {
  static constexpr int comps = 1;
  const Complex<T>* n;
  EDDY_HD EDDY_INLINE RhsFactors<T, 1> factors(index_t, const Mode<T>&, const Grid&) const { return {}; }
  EDDY_HD EDDY_INLINE void operator()(index_t m, const Mode<T>&, const RhsFactors<T, 1>&,
                                      Complex<T>* out) const {
    out[0] = n[m];
  }
};

/// Weighted real inner product term of one mode.
template <class T>
EDDY_HD EDDY_INLINE double dot_term(const Mode<T>& md, Complex<T> a, Complex<T> b) {
  return double(md.weight) * (double(a.re) * double(b.re) + double(a.im) * double(b.im));
}

/// -P y: the spectral source of mu, the physical adjoint field of the nonlinear products.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> adjoint_source_2d(const Mode<T>& md, Complex<T> y) {
  if (!md.kept || md.k2 == T(0)) return {T(0), T(0)};
  return T(-1) * y;
}

/// (u, v, omega_x, omega_y) times mu at physical point i (fields rs apart, mu the fifth); in place.
template <class T>
EDDY_HD EDDY_INLINE void adjoint_products_2d(index_t i, T* p, index_t rs) {
  const T mu = p[i + 4 * rs];
  for (int j = 0; j < 4; ++j) p[i + j * rs] *= mu;
}

/// N'(w)^T y at a mode from the unnormalised transforms f (4 fields cs apart) of the products with mu.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> nonlinear_transpose_2d(const Mode<T>& md, const Complex<T>* f, index_t m,
                                                      index_t cs, T scale) {
  const T inv = md.k2 > T(0) ? T(1) / md.k2 : T(0);
  const T kx = md.k[0], ky = md.k[1];
  const Complex<T> s =
      (-kx) * f[m] + (-ky) * f[m + cs] + (-ky * inv) * f[m + 2 * cs] + (kx * inv) * f[m + 3 * cs];
  return scale * times_i(s);
}

/// Per-mode coefficients of a step and their viscosity derivatives.
template <class T>
struct StepCoef {
  Mode<T> md;
  T e, e2, grow;     ///< exp(-L h), exp(-L h/2), RK3 stage 2's exp(+L h/2) (0 outside the mask)
  T de, de2, dgrow;  ///< d/dnu of the three
  EDDY_HD EDDY_INLINE static StepCoef at(const Grid& g, index_t m, const Linear<T>& lin, T h) {
    StepCoef c;
    c.md = Mode<T>::at(g, m);
    const T L = lin(c.md.k2);
    c.e = std::exp(-L * h);
    c.e2 = std::exp(-L * h / T(2));
    c.grow = c.md.kept ? std::exp(L * h / T(2)) : T(0);
    c.de = -c.md.k2 * h * c.e;
    c.de2 = -c.md.k2 * h / T(2) * c.e2;
    c.dgrow = c.md.k2 * h / T(2) * c.grow;
    return c;
  }
};

/// The forward values of one step a reverse stage reads: stage values x_s (x[0] = u) and terms n_s.
template <class T>
struct Tape {
  const Complex<T>* x[4];
  const Complex<T>* n[4];
};

/// The adjoint arrays of one reverse step (see the header comment).
template <class T>
struct AdjointArgs {
  const Complex<T>* a;  ///< adjoint of the step's result
  Complex<T>* ub;       ///< adjoint of the step's start (accumulated)
  Complex<T>* xb;       ///< adjoint of the stage value read by the later stage
  Complex<T>* nb;       ///< adjoint of this stage's nonlinear term (output)
  Complex<T>* accb;     ///< RK3: adjoint share of n1 from stage 2
  T h;
  Linear<T> lin;
};

/// Reverse of RK4 stage s (4..1) at mode m; returns the stage's share of dJ/dnu.
template <class T>
EDDY_HD EDDY_INLINE double rk4_stage_adjoint(int s, index_t m, const Grid& g, const Tape<T>& t,
                                             const AdjointArgs<T>& a) {
  const StepCoef<T> c = StepCoef<T>::at(g, m, a.lin, a.h);
  const T h = a.h;
  const Complex<T> ap = a.a[m], accb = (h / T(6)) * ap, u = t.x[0][m];
  if (s == 4) {  // u' = E u + h/6 (acc + n4), acc = E n1 + 2 E2 (n2 + n3)
    a.ub[m] = c.e * ap;
    a.nb[m] = (h / T(6)) * ap;
    return dot_term(c.md, ap, c.de * u) +
           dot_term(c.md, accb, c.de * t.n[0][m] + (T(2) * c.de2) * (t.n[1][m] + t.n[2][m]));
  }
  const Complex<T> xb = a.xb[m];
  if (s == 3) {  // x4 = E u + h E2 n3
    a.ub[m] = a.ub[m] + c.e * xb;
    a.nb[m] = (h * c.e2) * xb + (T(2) * c.e2) * accb;
    return dot_term(c.md, xb, c.de * u + (h * c.de2) * t.n[2][m]);
  }
  if (s == 2) {  // x3 = E2 u + h/2 n2
    a.ub[m] = a.ub[m] + c.e2 * xb;
    a.nb[m] = (h / T(2)) * xb + (T(2) * c.e2) * accb;
    return dot_term(c.md, xb, c.de2 * u);
  }
  // x2 = E2 (u + h/2 n1)
  a.ub[m] = a.ub[m] + c.e2 * xb;
  a.nb[m] = c.e * accb + (h / T(2) * c.e2) * xb;
  return dot_term(c.md, xb, c.de2 * (u + (h / T(2)) * t.n[0][m]));
}

/// Reverse of SSP-RK3 stage s (3..1) at mode m; returns the stage's share of dJ/dnu.
template <class T>
EDDY_HD EDDY_INLINE double rk3_stage_adjoint(int s, index_t m, const Grid& g, const Tape<T>& t,
                                             const AdjointArgs<T>& a) {
  const StepCoef<T> c = StepCoef<T>::at(g, m, a.lin, a.h);
  const T h = a.h;
  const Complex<T> ap = a.a[m], u = t.x[0][m];
  if (s == 3) {  // u' = E/3 u + 2/3 E2 (x3 + h n3)
    a.ub[m] = (c.e / T(3)) * ap;
    a.nb[m] = (T(2) / T(3) * c.e2 * h) * ap;
    return dot_term(c.md, ap, (c.de / T(3)) * u + (T(2) / T(3) * c.de2) * (t.x[2][m] + h * t.n[2][m]));
  }
  if (s == 2) {  // x3 = E2 u + h/4 (E2 n1 + G n2); x3's adjoint also has its direct share 2/3 E2 a
    const Complex<T> x3b = a.xb[m] + (T(2) / T(3) * c.e2) * ap;
    a.ub[m] = a.ub[m] + c.e2 * x3b;
    a.accb[m] = (h / T(4) * c.e2) * x3b;
    a.nb[m] = (h / T(4) * c.grow) * x3b;
    return dot_term(c.md, x3b, c.de2 * u + (h / T(4)) * (c.de2 * t.n[0][m] + c.dgrow * t.n[1][m]));
  }
  // x2 = E (u + h n1), acc = n1
  const Complex<T> xb = a.xb[m];
  a.ub[m] = a.ub[m] + c.e * xb;
  a.nb[m] = (h * c.e) * xb + a.accb[m];
  return dot_term(c.md, xb, c.de * (u + h * t.n[0][m]));
}

}  // namespace eddy::spectral
