#pragma once
/// KBC entropic multi-relaxation collision. One cell, pointwise; listed in lbm/collisions.hpp.
#include "lbm/collide_k.hpp"

namespace eddy::lbm {

/// KBC (Karlin, Boesch & Chikatamarla, Phys. Rev. E 90, 031302, 2014; Boesch, Chikatamarla & Karlin,
/// Phys. Rev. E 92, 043309, 2015): the non-equilibrium splits into a shear part Ds, which relaxes at the
/// viscosity's rate omega, and the rest Dh (bulk, third and higher moments, ghosts), whose rate
/// gamma omega / 2 each cell picks so that the post-collision state has the largest entropy the
/// shear relaxation allows:
///   f'_i = f_i - omega Ds_i - gamma omega / 2 Dh_i,
///   gamma = 2 / omega - (2 - 2 / omega) <Ds|Dh> / <Dh|Dh>,   <X|Y> = sum_i X_i Y_i / f_eq_i.
/// gamma = 2 is BGK. Ds_i = w_i 9/2 H2_i : dev(Pi_neq), the second-order Hermite projection of the
/// deviatoric non-equilibrium stress (on D2Q9 the s-part of Karlin 2014: N = Pi_xx - Pi_yy and Pi_xy;
/// on D3Q19 and D3Q27 the five deviatoric components, the KBC-N family of Boesch 2015); the trace goes
/// into Dh, so the bulk viscosity is the stabiliser's too. With a force (Guo), the scheme works on
/// f + S/2, whose non-equilibrium has the corrected stress Pi_neq + (u F + F u)/2 and no first moment:
/// f'_i = f_eq_i + (1 - omega) Ds_i + (1 - gamma omega / 2) Dh_i + S_i / 2, which is forced BGK when
/// gamma = 2.
///
/// Why it is here: next to walls at tau - 1/2 of a few hundredths the recursive-regularized operator,
/// which discards the non-hydrodynamic moments, turns the steady 2D cavity into a limit cycle (Re 3200
/// and 5000 at 256^2: 0.73 and 0.77 U off Ghia at t = 500, even with its TRT wall closure), while KBC
/// keeps the hydrodynamic moments exactly as BGK does (mass and momentum by construction, the shear
/// stress at the viscosity's rate) and damps only what the entropy says is in excess. Measured (H100,
/// 2026-12-06, cases/benchmarks/results/2026-12-06-h100): Re 3200, 256^2, steady at t = 287.5 and
/// 0.031 U / 0.045 U off Ghia (TRT 0.028 / 0.041); Re 5000, 256^2, 0.018 U / 0.017 U at t = 500 with a
/// residual that stops falling at 1.6e-4 per L/U, the change left in the cells under the moving lid; the
/// cube at Re 1000 within 0.005 U of Albensoeder & Kuhlmann at 128^3 (the same floor) and steady within
/// 0.002 U at 192^3. On the periodic Taylor-Green vortex it is a little more dissipative than the
/// regularized operator (256^3: curve 7.0 % of the DNS peak against 6.3 %), which stays the periodic
/// high-Re operator. Its cost over BGK is one more pass for the two entropic sums (a division per
/// direction) and the recomputed equilibria: 9 % below TRT on the 192^3 cube and below regularized on
/// the 256^3 TGV. The ratio <Ds|Dh>/<Dh|Dh> is invariant under a common scale of the populations, so the
/// 16-bit frame (`unit`) gives bitwise the scaled result; the same ratio of two sums that nearly vanish
/// close to equilibrium makes it more sensitive to rounding than the other operators (GPU against CPU
/// with a body force: 1e-11 where they keep 1e-13).
template <class R, bool Les = false, bool Force = false>
struct Kbc {
  R omega;  ///< 1 / tau
  CollisionExtras<R> extras{};
  static constexpr const char* name = "kbc";
  static Kbc make(const CollisionRates& r, const CollisionExtras<R>& extras) { return {R(r.omega), extras}; }

  /// Ds_i: the Hermite projection of the deviatoric stress d (xx yy zz xy xz yz) onto direction i.
  template <class L>
  EDDY_HD EDDY_INLINE static R shear_part(int i, const R (&d)[6]) {
    const R cx = R(L::c(i, 0)), cy = R(L::c(i, 1)), cz = R(L::c(i, 2));
    // H2 : d with d traceless: the -1/3 of H2's diagonal drops out.
    const R h = cx * cx * d[0] + cy * cy * d[1] + (L::d == 3 ? cz * cz * d[2] : R(0)) +
                R(2) * (cx * cy * d[3] + cx * cz * d[4] + cy * cz * d[5]);
    return R(L::w(i)) * R(4.5) * h;
  }

  template <class L>
  EDDY_HD EDDY_INLINE void operator()(R (&f)[L::q], R drho, const R (&u)[3], R unit = R(1)) const {
    R p[6];
    pi_neq<L, Force>(f, drho, u, extras.force, p, unit);
    const R w = local_omega<Les>(omega, extras, unit + drho, p);
    // The deviatoric part of the (force-corrected) non-equilibrium stress.
    const R tr = (p[0] + p[1] + (L::d == 3 ? p[2] : R(0))) * R(1.0 / L::d);
    const R d[6] = {p[0] - tr, p[1] - tr, L::d == 3 ? p[2] - tr : R(0), p[3], p[4], p[5]};
    // Pass 1: Dh_i (kept in f) and the entropic products.
    R sh = 0, hh = 0;
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
      const R feq = equilibrium<L>(i, drho, u, unit);
      R fneq = f[i] - feq;
      if constexpr (Force) fneq += R(0.5) * guo_source<L>(i, u, extras.force);
      const R ds = shear_part<L>(i, d), dh = fneq - ds;
      const R inv = R(1) / (R(L::w(i)) * unit + feq);
      sh += ds * dh * inv;
      hh += dh * dh * inv;
      f[i] = dh;
    }
    const R iw = R(1) / w;
    const R gamma = hh > R(0) ? R(2) * iw - (R(2) - R(2) * iw) * sh / hh : R(2);
    const R ks = R(1) - w, kh = R(1) - R(0.5) * gamma * w;
    // Pass 2: f' = f_eq + (1 - omega) Ds + (1 - gamma omega / 2) Dh [+ S / 2].
    EDDY_UNROLL for (int i = 0; i < L::q; ++i) {
      R out = equilibrium<L>(i, drho, u, unit) + ks * shear_part<L>(i, d) + kh * f[i];
      if constexpr (Force) out += R(0.5) * guo_source<L>(i, u, extras.force);
      f[i] = out;
    }
  }
};

}  // namespace eddy::lbm
