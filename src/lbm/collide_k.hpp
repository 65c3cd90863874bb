#pragma once
/// Pointwise LBM physics shared by the collision operators: moments, equilibrium, the non-equilibrium
/// stress, Smagorinsky and Guo forcing of one cell. No launches, no memory. The operators are one file each,
/// collision_<name>_k.hpp, listed in collisions.hpp.
///
/// Populations are stored shifted by their rest weight, f~_i = f_i - w_i (density shift as in
/// Lehmann et al. 2022 and Skordos 1993): the stored numbers are small, so FP32 keeps its digits for
/// the deviation from rest instead of spending them on the constant w_i.
#include <cmath>

#include "backend/macros.hpp"
#include "lbm/lattice.hpp"

namespace eddy::lbm {

/// The frame of the populations. Every function here takes `unit`, the rest density in the frame its
/// populations are given in: 1 for f~ itself, s for the stored numbers s f~ of 16-bit storage
/// (storage_k.hpp), whose kernels then compute on the loaded numbers as they are. Scaling by a power of
/// two commutes with every rounding (no value here comes near the subnormals), and every quantity below is
/// either linear in the populations (drho, j, Pi_neq, the force F, which the caller gives in the same
/// frame) or a ratio of two of them (u = j / rho, the Smagorinsky rate), so a step in the frame s gives
/// bitwise s times the step in the frame 1: the same results, without a multiply per population and load
/// or store.

/// Density deviation drho = rho - 1 and velocity u of shifted populations. With a body force F (lattice
/// units) the velocity is the Guo et al. (2002) half-step one, u = (sum c_i f_i + F/2) / rho, which makes
/// the forced scheme second-order accurate; F = 0 adds exact zeros.
template <class L, class R>
EDDY_HD EDDY_INLINE void moments(const R (&f)[L::q], R& drho, R (&u)[3], const R (&force)[3], R unit = R(1)) {
  R m = 0, jx = 0, jy = 0, jz = 0;
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    m += f[i];
    jx += f[i] * R(L::c(i, 0));
    jy += f[i] * R(L::c(i, 1));
    jz += f[i] * R(L::c(i, 2));
  }
  drho = m;
  const R inv_rho = R(1) / (unit + m);
  u[0] = (jx + R(0.5) * force[0]) * inv_rho, u[1] = (jy + R(0.5) * force[1]) * inv_rho,
  u[2] = (jz + R(0.5) * force[2]) * inv_rho;
}

/// Moments without a body force.
template <class L, class R>
EDDY_HD EDDY_INLINE void moments(const R (&f)[L::q], R& drho, R (&u)[3]) {
  const R zero[3] = {R(0), R(0), R(0)};
  moments<L>(f, drho, u, zero);
}

/// Shifted second-order equilibrium f~eq_i = w_i (rho (1 + 3 c.u + 9/2 (c.u)^2 - 3/2 u.u) - 1).
template <class L, class R>
EDDY_HD EDDY_INLINE R equilibrium(int i, R drho, const R (&u)[3], R unit = R(1)) {
  const R cu = R(L::c(i, 0)) * u[0] + R(L::c(i, 1)) * u[1] + R(L::c(i, 2)) * u[2];
  const R uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const R rho = unit + drho;
  return R(L::w(i)) * (drho + rho * (R(3) * cu + R(4.5) * cu * cu - R(1.5) * uu));
}

/// p += (u F + F u) / 2: the second-moment part of the Guo source (xx yy zz xy xz yz).
template <class R>
EDDY_HD EDDY_INLINE void add_force_stress(R (&p)[6], const R (&u)[3], const R (&force)[3]) {
  p[0] += u[0] * force[0], p[1] += u[1] * force[1], p[2] += u[2] * force[2];
  p[3] += R(0.5) * (u[0] * force[1] + u[1] * force[0]);
  p[4] += R(0.5) * (u[0] * force[2] + u[2] * force[0]);
  p[5] += R(0.5) * (u[1] * force[2] + u[2] * force[1]);
}

/// Non-equilibrium second moment Pi_neq_ab = sum_i c_ia c_ib (f_i - f_eq_i), components xx, yy, zz, xy,
/// xz, yz, straight from the moments (no per-direction equilibrium): sum c c f~ - rho u u - drho c_s^2 I
/// on shifted populations. With Force, the Guo correction + (u F + F u)/2 is included: this is the
/// tensor the forced BGK relaxes by (1 - omega) (Guo et al. 2002), so S = -3 omega / (2 rho) Pi_neq
/// holds with or without a force.
template <class L, bool Force, class R>
EDDY_HD EDDY_INLINE void pi_neq(const R (&f)[L::q], R drho, const R (&u)[3], const R (&force)[3], R (&p)[6],
                                R unit = R(1)) {
  R s[6] = {0, 0, 0, 0, 0, 0};
  EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
    const R cx = R(L::c(i, 0)), cy = R(L::c(i, 1)), cz = R(L::c(i, 2));
    s[0] += f[i] * cx * cx, s[1] += f[i] * cy * cy, s[3] += f[i] * cx * cy;
    if constexpr (L::d == 3) s[2] += f[i] * cz * cz, s[4] += f[i] * cx * cz, s[5] += f[i] * cy * cz;
  }
  const R rho = unit + drho, iso = drho * R(1.0 / 3.0);
  p[0] = s[0] - rho * u[0] * u[0] - iso;
  p[1] = s[1] - rho * u[1] * u[1] - iso;
  p[2] = L::d == 3 ? s[2] - rho * u[2] * u[2] - iso : R(0);
  p[3] = s[3] - rho * u[0] * u[1];
  p[4] = L::d == 3 ? s[4] - rho * u[0] * u[2] : R(0);
  p[5] = L::d == 3 ? s[5] - rho * u[1] * u[2] : R(0);
  if constexpr (Force) add_force_stress(p, u, force);
}

/// Pi_neq : Pi_neq.
template <class R>
EDDY_HD EDDY_INLINE R contract(const R (&p)[6]) {
  return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + R(2) * (p[3] * p[3] + p[4] * p[4] + p[5] * p[5]);
}

/// Relaxation rate of one cell with the Smagorinsky model (Hou et al. 1996): nu_t = (C_s Delta)^2 |S|,
/// |S| = sqrt(2 S:S), with the strain rate taken locally from the non-equilibrium stress,
/// S = -3 / (2 rho tau) Pi_neq, no finite differences. Solving tau = tau0 + 3 C_s^2 |S(tau)| for tau gives
/// tau = (tau0 + sqrt(tau0^2 + 18 C_s^2 sqrt(2 Pi:Pi) / rho)) / 2 (Delta = dx = 1). `les` = 18 C_s^2.
template <class R>
EDDY_HD EDDY_INLINE R smagorinsky_omega(R tau0, R les, R rho, const R (&p)[6]) {
  const R q = contract(p);
  return R(2) / (tau0 + std::sqrt(tau0 * tau0 + les * std::sqrt(R(2) * q) / rho));
}

/// Guo et al. (2002) source without its (1 - omega/2) factor: w_i (3 (c_i - u) + 9 (c_i . u) c_i) . F.
template <class L, class R>
EDDY_HD EDDY_INLINE R guo_source(int i, const R (&u)[3], const R (&force)[3]) {
  const R cx = R(L::c(i, 0)), cy = R(L::c(i, 1)), cz = R(L::c(i, 2));
  const R cu = cx * u[0] + cy * u[1] + cz * u[2];
  const R cf = cx * force[0] + cy * force[1] + cz * force[2];
  const R uf = u[0] * force[0] + u[1] * force[1] + u[2] * force[2];
  return R(L::w(i)) * (R(3) * (cf - uf) + R(9) * cu * cf);
}

/// What the LES model and the body force add to any collision; the operators take them as template
/// flags (Les, Force), so a plain run compiles to the plain kernel and no cell branches on them.
template <class R>
struct CollisionExtras {
  R tau0 = R(1);                    ///< molecular relaxation time (1 / omega)
  R les = R(0);                     ///< 18 C_s^2 of the Smagorinsky model (Les only)
  R force[3] = {R(0), R(0), R(0)};  ///< body force per unit volume, lattice units (Force only)
};

/// The rates an operator is built from (host side, lattice units): every operator's `make` takes them.
struct CollisionRates {
  double omega = 1.0;             ///< 1 / tau: the viscosity's rate
  double trt_magic = 3.0 / 16.0;  ///< TRT's magic parameter Lambda
};

/// The cell's relaxation rate from its density rho and non-equilibrium stress p (pi_neq): omega, or the
/// Smagorinsky one.
template <bool Les, class R>
EDDY_HD EDDY_INLINE R local_omega(R omega, const CollisionExtras<R>& extras, R rho, const R (&p)[6]) {
  if constexpr (Les) {
    return smagorinsky_omega(extras.tau0, extras.les, rho, p);
  } else {
    return omega;
  }
}

/// The cell's relaxation rate: omega, or the Smagorinsky one from the cell's own stress.
template <class L, bool Les, bool Force, class R>
EDDY_HD EDDY_INLINE R local_omega(R omega, const CollisionExtras<R>& extras, const R (&f)[L::q], R drho,
                                  const R (&u)[3], R unit) {
  if constexpr (Les) {
    R p[6];
    pi_neq<L, Force>(f, drho, u, extras.force, p, unit);
    return local_omega<true>(omega, extras, unit + drho, p);
  } else {
    return omega;
  }
}

}  // namespace eddy::lbm
