#pragma once
/// Body forces of the spectral solver, mode by mode (no launches, no allocation).
///
/// Kolmogorov forcing (2D and 3D): f = F sin(k_f y) x in the momentum equation. Its only Fourier modes are
/// k = (0, +-k_f, 0): f_x = -+ i F / 2 there (times the half-cell phase, see kolmogorov_mode) (3D velocity
/// form); in the 2D vorticity equation the source is curl f = -F k_f cos(k_f y), i.e. -F k_f / 2 at both
/// modes. The laminar steady state is u = F / (nu k_f^2 + mu) sin(k_f y) x (Meshalkin & Sinai 1961).
///
/// Band-limited forcing at a constant energy injection rate eps: f_k = eps / (2 E_b) u_k for the kept modes
/// with k_a <= |k| <= k_b, E_b the kinetic energy of those modes (2D: the same on omega_k). Then
/// sum_k Re(f_k . u_k*) = eps exactly, at every stage of every step ("negative viscosity" in the band:
/// Machiels 1997, Phys. Rev. Lett. 79; Lamorgese, Caughey & Pope 2005, Phys. Fluids 17, 015106 with
/// constant power). Chosen over stochastic forcing (Alvelius 1999, Eswaran & Pope 1988) because it is a
/// function of the state alone: deterministic, the same on every decomposition up to the round-off of one
/// reduction, and restart-exact with nothing but the spectral coefficients in the checkpoint; it keeps the
/// phases of the forced modes and injects exactly eps, so dE/dt = eps - dissipation holds to the stepper's
/// error. It needs E_b > 0: the initial field must have energy in the band.
#include "backend/fft.hpp"
#include "spectral/grid.hpp"

namespace eddy::spectral {

using backend::Complex;

/// The configured force, in physical units (trivially copyable).
struct Forcing {
  enum Kind : int { none = 0, kolmogorov = 1, band_limited = 2 };
  int kind = none;
  double amplitude = 0.0;       ///< kolmogorov: F [m/s^2]
  index_t mode = 0;             ///< kolmogorov: k_f / (2 pi / L_y), a whole number
  double rate = 0.0;            ///< band_limited: eps [m^2/s^3]
  double band[2] = {0.0, 0.0};  ///< band_limited: [k_a, k_b] [1/m]

  /// Whether |k|^2 = k2 lies in the forced band.
  EDDY_HD EDDY_INLINE bool in_band(double k2) const {
    return kind == band_limited && k2 >= band[0] * band[0] && k2 <= band[1] * band[1];
  }
};

/// The Kolmogorov force at one mode, component d (2D: the vorticity source, d = 0); zero elsewhere.
template <class T>
EDDY_HD EDDY_INLINE Complex<T> kolmogorov_mode(const Forcing& f, const Grid& g, const Mode<T>& md, int d) {
  if (f.kind != Forcing::kolmogorov || md.ix != 0 || md.iz != 0 || (md.iy != f.mode && md.iy != -f.mode))
    return {T(0), T(0)};
  // Grid point j sits at the cell centre y = (j + 1/2) dy (the fields' coordinates): the coefficient of
  // sin(k_f y) there carries the half-cell phase exp(i k_f dy / 2).
  const Complex<T> shift = md.shift(g, 1);
  if (g.dims == 2) return T(-0.5 * f.amplitude * g.kf[1] * double(f.mode)) * shift;
  if (d != 0) return {T(0), T(0)};
  return Complex<T>{T(0), T(md.iy > 0 ? -0.5 * f.amplitude : 0.5 * f.amplitude)} * shift;
}

/// The force a stage adds to the nonlinear term: the fixed Kolmogorov modes, or c times the stage value
/// in the band (c = eps / (2 E_b) of that stage value, reduced over the box beforehand).
template <class T>
struct ForceTerm {
  Forcing f;
  T c;                  ///< band_limited: eps / (2 E_b)
  const Complex<T>* x;  ///< the stage value (band_limited)
  index_t cs;           ///< its component stride

  /// The force at local mode m (D components, into `out`), and whether the stage adds it (add): the fixed
  /// Kolmogorov modes (zero at the other kept modes, where it is added too), or c times the stage value in
  /// the band; nothing outside the mask. The part of the force that needs the math library (the half-cell
  /// phase) and reads the stage value (where the band holds the mode), apart from add, so that a loop over
  /// modes can take it in a loop of its own (spectral/stepper_k.hpp: stage_run).
  template <int D>
  EDDY_HD EDDY_INLINE bool at(index_t m, const Mode<T>& md, const Grid& g, Complex<T> (&out)[D]) const {
    for (int d = 0; d < D; ++d) out[d] = {T(0), T(0)};
    if (f.kind == Forcing::none || !md.kept) return false;
    if (f.kind == Forcing::kolmogorov) {
      for (int d = 0; d < D; ++d) out[d] = kolmogorov_mode(f, g, md, d);
      return true;
    }
    if (!f.in_band(double(md.k2))) return false;
    for (int d = 0; d < D; ++d) out[d] = c * x[m + d * cs];
    return true;
  }

  /// n + force where `on` (at(): the force of the mode and whether it applies), else n. The sums are formed
  /// either way and selected, so that a loop over modes has no branch here.
  template <int D>
  EDDY_HD EDDY_INLINE void add(bool on, const Complex<T> (&force)[D], Complex<T>* n) const {
    for (int d = 0; d < D; ++d) {
      const Complex<T> sum = n[d] + force[d];
      n[d] = backend::select(on, sum, n[d]);
    }
  }
};

/// The power of the fixed (Kolmogorov) force on the state at mode m, sum over components of
/// w Re(f_k s_k*) (2D: divided by k^2, the energy weight of omega_k).
template <class T>
EDDY_HD EDDY_INLINE double kolmogorov_power(const Forcing& f, const Grid& g, const Mode<T>& md,
                                            const Complex<T>* s, index_t m, index_t cs) {
  if (f.kind != Forcing::kolmogorov || !md.kept || md.k2 == T(0)) return 0.0;
  double p = 0;
  for (int d = 0; d < (g.dims == 2 ? 1 : 3); ++d) {
    const Complex<T> fk = kolmogorov_mode(f, g, md, d), sk = s[m + d * cs];
    p += double(fk.re) * double(sk.re) + double(fk.im) * double(sk.im);
  }
  return md.weight * (g.dims == 2 ? p / double(md.k2) : p);
}

}  // namespace eddy::spectral
