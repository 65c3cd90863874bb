#pragma once
/// Recursive regularized collision. One cell, pointwise; listed in lbm/collisions.hpp.
#include "lbm/collide_k.hpp"
#include "lbm/collision_trt_k.hpp"

namespace eddy::lbm {

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
///
/// Next to walls (`wall`, near_wall_collision): the cells with a link into a solid take TRT of the same
/// viscosity (Lambda = numerics.trt_magic) in the step that bounces their populations back (the
/// near-solid kernel of the odd step); the even step, and every other cell, stays regularized.
/// Regularized everywhere, the 2D cavity at Re 1000, 128^2, FP64 (tau = 0.538) never reaches a steady
/// state: a limit cycle of period 5.3 L/U, kinetic energy 22 % below BGK's and TRT's, centrelines
/// 0.067 U off Ghia, while BGK and TRT are steady (0.0110 U and 0.0073 U) and the periodic Taylor-Green
/// vortex is fine. The projection onto the second- and third-order Hermite moments discards the part of
/// the bounced-back populations' non-equilibrium that is not hydrodynamic, and with it part of the
/// wall's no-slip information. With BGK at the wall cells in both steps the run is steady at t = 87.5
/// (0.0107 U, 0.0142 U off Ghia), with TRT in the bounce-back step alone at t = 86.7 (0.0096 U,
/// 0.0120 U): that closure is the one kept, as it costs nothing (the near-solid kernel is a kernel of
/// its own) and keeps the bulk's stability at small tau - 1/2.
/// The Hermite coefficients of a regularized post-collision state (Regularized::relax), from which each
/// population follows alone (Regularized::population): the density deviation, the momentum with half the
/// force, A2 (xx yy zz xy xz yz) and the third-order A3 the lattice keeps. The moment storage
/// (lbm/moment_k.hpp) rebuilds a neighbour's populations from them one link at a time.
template <class R>
struct RegularizedState {
  R drho, j[3], a2[6];
  R xxy, xyy, xxz, xzz, yyz, yzz, xyz;
};

template <class R, bool Les = false, bool Force = false>
struct Regularized {
  R omega;  ///< 1 / tau
  CollisionExtras<R> extras{};
  Trt<R, Les, Force> wall{};  ///< the operator of the cells next to a solid in the bounce-back step
  static constexpr const char* name = "regularized";
  static Regularized make(const CollisionRates& r, const CollisionExtras<R>& extras) {
    return {R(r.omega), extras, Trt<R, Les, Force>::make(r, extras)};
  }
  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    R p[6];
    pi_neq<L, Force>(f, drho, u, extras.force, p, unit);
    const RegularizedState<R> s = relax<L>(drho, u, p, unit);
    populations<L>(s, f);
  }

  /// The coefficients of the post-collision state of a cell with density deviation drho, velocity u and
  /// non-equilibrium stress p (pi_neq, with Guo's correction where Force; relaxed in place).
  template <class L>
  EDDY_HD EDDY_INLINE RegularizedState<R> relax(R drho, const R (&u)[3], R (&p)[6], R unit = R(1)) const {
    const R w = local_omega<Les>(omega, extras, unit + drho, p);
    const R rho = unit + drho, k = R(1) - w;
    EDDY_UNROLL for (int a = 0; a < 6; ++a) p[a] *= k;  // (1 - omega) a2_neq
    RegularizedState<R> s;
    s.drho = drho;
    // A2 (xx yy zz xy xz yz) and the momentum with half the force.
    s.a2[0] = rho * u[0] * u[0] + p[0], s.a2[1] = rho * u[1] * u[1] + p[1],
    s.a2[2] = rho * u[2] * u[2] + p[2];
    s.a2[3] = rho * u[0] * u[1] + p[3], s.a2[4] = rho * u[0] * u[2] + p[4],
    s.a2[5] = rho * u[1] * u[2] + p[5];
    s.j[0] = rho * u[0], s.j[1] = rho * u[1], s.j[2] = rho * u[2];
    if constexpr (Force) {
      add_force_stress(s.a2, u, extras.force);
      s.j[0] += R(0.5) * extras.force[0], s.j[1] += R(0.5) * extras.force[1],
          s.j[2] += R(0.5) * extras.force[2];
    }
    // A3_aab = rho u_a u_a u_b + (1 - omega)(2 u_a a2_ab + u_b a2_aa), from the relaxed a2 above.
    auto a3 = [&](int a, int b, R pab, R paa) {
      return rho * u[a] * u[a] * u[b] + R(2) * u[a] * pab + u[b] * paa;
    };
    s.xxy = a3(0, 1, p[3], p[0]), s.xyy = a3(1, 0, p[3], p[1]);
    s.xxz = 0, s.xzz = 0, s.yyz = 0, s.yzz = 0, s.xyz = 0;
    if constexpr (L::d == 3) {
      s.xxz = a3(0, 2, p[4], p[0]), s.xzz = a3(2, 0, p[4], p[2]);
      s.yyz = a3(1, 2, p[5], p[1]), s.yzz = a3(2, 1, p[5], p[2]);
      s.xyz = rho * u[0] * u[1] * u[2] + u[0] * p[5] + u[1] * p[4] + u[2] * p[3];
    }
    return s;
  }

  /// The parts of post-collision population i of the state with coefficients s that are even and odd in
  /// c_i: f*_i = w_i (even + odd). The odd part of the opposite link is exactly -odd (every term of it
  /// is a product with one or three components of c_i, whose signs flip and whose magnitudes round alike),
  /// so f*_opp(i) = w_i (even - odd), bit for bit.
  template <class L>
  EDDY_HD EDDY_INLINE static void parts(int i, const RegularizedState<R>& s, R& even, R& odd) {
    constexpr R third = R(1.0 / 3.0);
    const R cx = R(L::c(i, 0)), cy = R(L::c(i, 1)), cz = R(L::c(i, 2));
    const R* a2 = s.a2;
    const R h2 = (cx * cx - third) * a2[0] + (cy * cy - third) * a2[1] +
                 (L::d == 3 ? (cz * cz - third) * a2[2] : R(0)) +
                 R(2) * (cx * cy * a2[3] + cx * cz * a2[4] + cy * cz * a2[5]);
    const R hxxy = (cx * cx - third) * cy, hxyy = (cy * cy - third) * cx;
    R h3;
    if constexpr (L::d == 2) {
      h3 = R(13.5) * (hxxy * s.xxy + hxyy * s.xyy);
    } else {
      const R hxxz = (cx * cx - third) * cz, hxzz = (cz * cz - third) * cx;
      const R hyyz = (cy * cy - third) * cz, hyzz = (cz * cz - third) * cy;
      if constexpr (L::q == 27) {
        h3 = R(13.5) *
                 (hxxy * s.xxy + hxyy * s.xyy + hxxz * s.xxz + hxzz * s.xzz + hyyz * s.yyz + hyzz * s.yzz) +
             R(27) * cx * cy * cz * s.xyz;
      } else {
        h3 = R(13.5) * ((hxxy + hyzz) * (s.xxy + s.yzz) + (hxzz + hxyy) * (s.xzz + s.xyy) +
                        (hyyz + hxxz) * (s.yyz + s.xxz)) +
             R(4.5) * ((hxxy - hyzz) * (s.xxy - s.yzz) + (hxzz - hxyy) * (s.xzz - s.xyy) +
                       (hyyz - hxxz) * (s.yyz - s.xxz));
      }
    }
    even = s.drho + R(4.5) * h2;
    odd = R(3) * (cx * s.j[0] + cy * s.j[1] + cz * s.j[2]) + h3;
  }

  /// Post-collision population i of the state with coefficients s.
  template <class L>
  EDDY_HD EDDY_INLINE static R population(int i, const RegularizedState<R>& s) {
    R even, odd;
    parts<L>(i, s, even, odd);
    return R(L::w(i)) * (even + odd);
  }

  /// All q post-collision populations of the state with coefficients s, a pair of opposite links from one
  /// even and one odd part (half the arithmetic of q calls of population); f[i] is population(i, s) bit
  /// for bit.
  template <class L>
  EDDY_HD EDDY_INLINE static void populations(const RegularizedState<R>& s, R (&f)[L::q]) {
    R even, odd;
    parts<L>(0, s, even, odd);
    f[0] = R(L::w(0)) * (even + odd);
    EDDY_UNROLL for (int i = 1; i < L::q; i += 2) {
      parts<L>(i, s, even, odd);
      f[i] = R(L::w(i)) * (even + odd);
      f[i + 1] = R(L::w(i)) * (even - odd);
    }
  }
};

}  // namespace eddy::lbm
