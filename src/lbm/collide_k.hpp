#pragma once
/// Pointwise LBM physics: moments, equilibrium and collision of one cell. No launches, no memory.
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

/// The cell's relaxation rate: omega, or the Smagorinsky one from the cell's own stress.
template <class L, bool Les, bool Force, class R>
EDDY_HD EDDY_INLINE R local_omega(R omega, const CollisionExtras<R>& extras, const R (&f)[L::q], R drho,
                                  const R (&u)[3], R unit) {
  if constexpr (Les) {
    R p[6];
    pi_neq<L, Force>(f, drho, u, extras.force, p, unit);
    return smagorinsky_omega(extras.tau0, extras.les, unit + drho, p);
  } else {
    return omega;
  }
}

/// BGK (single relaxation time): f_i <- f_i - omega (f_i - f_eq_i) [+ (1 - omega/2) S_i, Guo].
template <class R, bool Les = false, bool Force = false>
struct Bgk {
  R omega;  ///< 1 / tau
  CollisionExtras<R> extras{};
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    const R w = local_omega<L, Les, Force>(omega, extras, f, drho, u, unit);
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
      f[i] -= w * (f[i] - equilibrium<L>(i, drho, u, unit));
      if constexpr (Force) f[i] += (R(1) - R(0.5) * w) * guo_source<L>(i, u, extras.force);
    }
  }
};

/// TRT (two relaxation times, Ginzburg 2008): the symmetric part relaxes with omega_plus (viscosity),
/// the antisymmetric part with omega_minus from the magic parameter
/// Lambda = (1/omega_plus - 1/2)(1/omega_minus - 1/2); Lambda = 3/16 puts bounce-back walls exactly
/// half-way for Poiseuille flow. With LES, omega_plus is the cell's Smagorinsky rate and omega_minus
/// follows from Lambda. The Guo source splits the same way into its even part w_i (9 (c.u)(c.F) - 3 u.F)
/// (factor 1 - omega_plus/2) and its odd part 3 w_i c.F (factor 1 - omega_minus/2).
template <class R, bool Les = false, bool Force = false>
struct Trt {
  R omega_plus, omega_minus;
  CollisionExtras<R> extras{};
  R magic = R(0.1875);  ///< Lambda, used with LES only
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    const R wp = local_omega<L, Les, Force>(omega_plus, extras, f, drho, u, unit);
    R wm = omega_minus;
    if constexpr (Les) wm = R(1) / (magic / (R(1) / wp - R(0.5)) + R(0.5));
    R feq[L::q];
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) feq[i] = equilibrium<L>(i, drho, u, unit);
    const R half_p = R(0.5) * wp, half_m = R(0.5) * wm;
    f[0] -= wp * (f[0] - feq[0]);
    if constexpr (Force) f[0] += (R(1) - half_p) * guo_source<L>(0, u, extras.force);
    EDDY_UNROLL for (int i = 1; i < L::q; i += 2) {
      const R np = (f[i] - feq[i]) + (f[i + 1] - feq[i + 1]);  // 2 x non-equilibrium, symmetric part
      const R nm = (f[i] - feq[i]) - (f[i + 1] - feq[i + 1]);  // 2 x non-equilibrium, antisymmetric part
      f[i] -= half_p * np + half_m * nm;
      f[i + 1] -= half_p * np - half_m * nm;
      if constexpr (Force) {
        const R s0 = guo_source<L>(i, u, extras.force), s1 = guo_source<L>(i + 1, u, extras.force);
        const R sp = R(0.5) * (s0 + s1), sm = R(0.5) * (s0 - s1);
        f[i] += (R(1) - half_p) * sp + (R(1) - half_m) * sm;
        f[i + 1] += (R(1) - half_p) * sp - (R(1) - half_m) * sm;
      }
    }
  }
};

/// Recursive regularized collision (Malaspinas 2015; Coreixas et al. 2017), on shifted populations.
///
/// Why this operator: it is the cheapest of the high-Re-stable family (one pass over the populations for
/// the moments, no per-direction equilibrium, no matrix), needs nothing but the local moments (so it
/// keeps the one fused AA kernel and bitwise decomposition independence), has the same viscosity as BGK
/// (omega), and removes the non-hydrodynamic ("ghost") moments whose growth makes BGK blow up when
/// tau -> 1/2. Cumulant (Geier 2015) and KBC (Karlin 2014) are comparably stable but cost roughly 2-3x
/// the arithmetic and registers (central moments, or an entropic stabiliser with a per-cell quadratic),
/// which matters for a kernel that should stay memory-bound at < 64 registers.
///
/// The post-collision state is rebuilt from its Hermite coefficients:
///   f_i = w_i [ rho + 3 c.(rho u + F/2) + 9/2 H2_i : A2 + H3 terms : A3 ]  (unshifted),
///   A2 = rho u u + (1 - omega) a2_neq + (u F + F u)/2,    a2_neq = Pi_neq (with Guo's correction),
///   A3 = rho u u u + (1 - omega) a3_neq,  a3_neq_abc = u_a a2_bc + u_b a2_ac + u_c a2_ab (recursive,
///   Malaspinas 2015 Eq. 29: the Chapman-Enskog form of the third-order non-equilibrium moment).
/// H2_ab = c_a c_b - delta_ab/3 and H3 are Hermite polynomials; only the third-order ones the lattice
/// supports enter (Coreixas 2017 §III):
///   D2Q9: H_xxy, H_xyy;  D3Q27: the six H_aab and H_xyz;
///   D3Q19: no H_xyz, and H_xxy, H_yzz are not orthogonal on it (sum w H_xxy H_yzz = -1/27), so the
///   orthogonal pairs P = H_xxy + H_yzz (norm 2/27) and M = H_xxy - H_yzz (norm 6/27) carry the
///   coefficients A_xxy +- A_yzz with their discrete norms (and the same for (xzz, xyy), (yyz, xxz)):
///   the projection that keeps those third moments exact on the lattice.
/// Mass and momentum are exact (H2 and H3 have zero 0th and 1st moments on every lattice here), and
/// with omega = 1 the result is the third-order equilibrium, a fixed point.
template <class R, bool Les = false, bool Force = false>
struct Regularized {
  R omega;  ///< 1 / tau
  CollisionExtras<R> extras{};
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    R p[6];
    pi_neq<L, Force>(f, drho, u, extras.force, p, unit);
    R w = omega;
    if constexpr (Les) w = smagorinsky_omega(extras.tau0, extras.les, unit + drho, p);
    const R rho = unit + drho, k = R(1) - w;
    EDDY_UNROLL for (int a = 0; a < 6; ++a) p[a] *= k;  // (1 - omega) a2_neq
    // A2 (xx yy zz xy xz yz) and the momentum with half the force.
    R a2[6] = {rho * u[0] * u[0] + p[0], rho * u[1] * u[1] + p[1], rho * u[2] * u[2] + p[2],
               rho * u[0] * u[1] + p[3], rho * u[0] * u[2] + p[4], rho * u[1] * u[2] + p[5]};
    R j[3] = {rho * u[0], rho * u[1], rho * u[2]};
    if constexpr (Force) {
      add_force_stress(a2, u, extras.force);
      j[0] += R(0.5) * extras.force[0], j[1] += R(0.5) * extras.force[1], j[2] += R(0.5) * extras.force[2];
    }
    // A3_aab = rho u_a u_a u_b + (1 - omega)(2 u_a a2_ab + u_b a2_aa), from the relaxed a2 above.
    auto a3 = [&](int a, int b, R pab, R paa) {
      return rho * u[a] * u[a] * u[b] + R(2) * u[a] * pab + u[b] * paa;
    };
    const R xxy = a3(0, 1, p[3], p[0]), xyy = a3(1, 0, p[3], p[1]);
    R xxz = 0, xzz = 0, yyz = 0, yzz = 0, xyz = 0;
    if constexpr (L::d == 3) {
      xxz = a3(0, 2, p[4], p[0]), xzz = a3(2, 0, p[4], p[2]);
      yyz = a3(1, 2, p[5], p[1]), yzz = a3(2, 1, p[5], p[2]);
      xyz = rho * u[0] * u[1] * u[2] + u[0] * p[5] + u[1] * p[4] + u[2] * p[3];
    }
    constexpr R third = R(1.0 / 3.0);
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
      const R cx = R(L::c(i, 0)), cy = R(L::c(i, 1)), cz = R(L::c(i, 2));
      const R h2 = (cx * cx - third) * a2[0] + (cy * cy - third) * a2[1] +
                   (L::d == 3 ? (cz * cz - third) * a2[2] : R(0)) +
                   R(2) * (cx * cy * a2[3] + cx * cz * a2[4] + cy * cz * a2[5]);
      const R hxxy = (cx * cx - third) * cy, hxyy = (cy * cy - third) * cx;
      R h3;
      if constexpr (L::d == 2) {
        h3 = R(13.5) * (hxxy * xxy + hxyy * xyy);
      } else {
        const R hxxz = (cx * cx - third) * cz, hxzz = (cz * cz - third) * cx;
        const R hyyz = (cy * cy - third) * cz, hyzz = (cz * cz - third) * cy;
        if constexpr (L::q == 27) {
          h3 = R(13.5) * (hxxy * xxy + hxyy * xyy + hxxz * xxz + hxzz * xzz + hyyz * yyz + hyzz * yzz) +
               R(27) * cx * cy * cz * xyz;
        } else {
          h3 = R(13.5) *
                   ((hxxy + hyzz) * (xxy + yzz) + (hxzz + hxyy) * (xzz + xyy) + (hyyz + hxxz) * (yyz + xxz)) +
               R(4.5) *
                   ((hxxy - hyzz) * (xxy - yzz) + (hxzz - hxyy) * (xzz - xyy) + (hyyz - hxxz) * (yyz - xxz));
        }
      }
      f[i] = R(L::w(i)) * (drho + R(3) * (cx * j[0] + cy * j[1] + cz * j[2]) + R(4.5) * h2 + h3);
    }
  }
};

/// Omega_minus of TRT from omega_plus and the magic parameter Lambda.
inline double trt_omega_minus(double omega_plus, double magic) {
  const double tau_plus = 1.0 / omega_plus;
  return 1.0 / (magic / (tau_plus - 0.5) + 0.5);
}

}  // namespace eddy::lbm
