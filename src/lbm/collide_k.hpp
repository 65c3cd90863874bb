#pragma once
/// Pointwise LBM physics: moments, equilibrium and collision of one cell. No launches, no memory.
///
/// Populations are stored shifted by their rest weight, f~_i = f_i - w_i (density shift as in
/// Lehmann et al. 2022 and Skordos 1993): the stored numbers are small, so FP32 keeps its digits for
/// the deviation from rest instead of spending them on the constant w_i.
#include "backend/macros.hpp"
#include "lbm/lattice.hpp"

namespace eddy::lbm {

/// Density deviation drho = rho - 1 and velocity u of shifted populations.
template <class L, class R>
EDDY_HD EDDY_INLINE void moments(const R (&f)[L::q], R& drho, R (&u)[3]) {
  R m = 0, jx = 0, jy = 0, jz = 0;
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    m += f[i];
    jx += f[i] * R(L::c(i, 0));
    jy += f[i] * R(L::c(i, 1));
    jz += f[i] * R(L::c(i, 2));
  }
  drho = m;
  const R inv_rho = R(1) / (R(1) + m);
  u[0] = jx * inv_rho, u[1] = jy * inv_rho, u[2] = jz * inv_rho;
}

/// Shifted second-order equilibrium f~eq_i = w_i (rho (1 + 3 c.u + 9/2 (c.u)^2 - 3/2 u.u) - 1).
template <class L, class R>
EDDY_HD EDDY_INLINE R equilibrium(int i, R drho, const R (&u)[3]) {
  const R cu = R(L::c(i, 0)) * u[0] + R(L::c(i, 1)) * u[1] + R(L::c(i, 2)) * u[2];
  const R uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const R rho = R(1) + drho;
  return R(L::w(i)) * (drho + rho * (R(3) * cu + R(4.5) * cu * cu - R(1.5) * uu));
}

/// BGK (single relaxation time): f_i <- f_i - omega (f_i - f_eq_i).
template <class R>
struct Bgk {
  R omega;  ///< 1 / tau
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3]) const {
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) f[i] -= omega * (f[i] - equilibrium<L>(i, drho, u));
  }
};

/// TRT (two relaxation times, Ginzburg 2008): the symmetric part relaxes with omega_plus (viscosity),
/// the antisymmetric part with omega_minus from the magic parameter
/// Lambda = (1/omega_plus - 1/2)(1/omega_minus - 1/2); Lambda = 3/16 puts bounce-back walls exactly
/// half-way for Poiseuille flow.
template <class R>
struct Trt {
  R omega_plus, omega_minus;
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3]) const {
    R feq[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) feq[i] = equilibrium<L>(i, drho, u);
    const R half_p = R(0.5) * omega_plus, half_m = R(0.5) * omega_minus;
    f[0] -= omega_plus * (f[0] - feq[0]);
    EDDY_UNROLL for (int i = 1; i < L::q; i += 2) {
      const R np = (f[i] - feq[i]) + (f[i + 1] - feq[i + 1]);  // 2 x non-equilibrium, symmetric part
      const R nm = (f[i] - feq[i]) - (f[i + 1] - feq[i + 1]);  // 2 x non-equilibrium, antisymmetric part
      f[i] -= half_p * np + half_m * nm;
      f[i + 1] -= half_p * np - half_m * nm;
    }
  }
};

/// Omega_minus of TRT from omega_plus and the magic parameter Lambda.
inline double trt_omega_minus(double omega_plus, double magic) {
  const double tau_plus = 1.0 / omega_plus;
  return 1.0 / (magic / (tau_plus - 0.5) + 0.5);
}

}  // namespace eddy::lbm
