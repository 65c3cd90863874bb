#pragma once
/// Random initial fields with a prescribed energy spectrum, built mode by mode in spectral space.
///
/// E(k) = U^2 a_s / (2 k_p) (k / k_p)^(2s+1) exp(-(s + 1/2) (k / k_p)^2), a_s = (2s+1)^(s+1) / (2^s s!),
/// whose integral is U^2 / 2 (San & Staples 2012, Comput. Fluids 63, Eq. 38). Each mode gets the
/// amplitude that puts E(k) dk into its shell and a random phase (2D vorticity) or a random
/// divergence-free complex direction (3D velocity, Rogallo 1981). The random numbers of a mode come
/// from a counter-based generator keyed by the seed and the mode's global wave numbers, so the field
/// is the same for every decomposition and rank count; modes on the kx = 0 plane take the conjugate of
/// their partner at -k, so the physical field is real.
#include <cmath>
#include <cstdint>

#include "spectral/navier_stokes_k.hpp"

namespace eddy::spectral {

struct RandomSpectrum {
  double energy_scale = 1.0;  ///< U^2 [m^2/s^2]
  double k_peak = 12.0;       ///< k_p [1/m]
  double s = 3.0;             ///< shape exponent
  std::uint64_t seed = 42;
  double a_s = 0.0;  ///< normalisation (2s+1)^(s+1) / (2^s s!), set by make()

  static RandomSpectrum make(double energy_scale, double k_peak, double s, std::uint64_t seed) {
    RandomSpectrum r{energy_scale, k_peak, s, seed, 0.0};
    r.a_s = std::pow(2 * s + 1, s + 1) / (std::pow(2.0, s) * std::tgamma(s + 1));
    return r;
  }
  /// E(k).
  EDDY_HD EDDY_INLINE double energy(double k) const {
    const double x = k / k_peak;
    return energy_scale * a_s / (2 * k_peak) * std::pow(x, 2 * s + 1) * std::exp(-(s + 0.5) * x * x);
  }
};

/// SplitMix64 (Steele, Lea & Flood 2014): the next 64 random bits of the stream `state`.
EDDY_HD EDDY_INLINE std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
/// Uniform in (0, 1].
EDDY_HD EDDY_INLINE double uniform(std::uint64_t& state) {
  return (double(splitmix64(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

/// The value of the random field at local mode m: 2D, one component (vorticity); 3D, three (velocity).
template <class T>
EDDY_HD EDDY_INLINE void random_mode(const Grid& g, index_t m, const RandomSpectrum& r, Complex<T>* out) {
  const int comps = g.dims == 2 ? 1 : 3;
  for (int d = 0; d < comps; ++d) out[d] = {T(0), T(0)};
  index_t ix, iy, iz;
  g.wave(m, ix, iy, iz);
  if ((ix == 0 && iy == 0 && iz == 0) || !g.kept(ix, iy, iz)) return;
  // On the kx = 0 plane, one of each pair (k, -k) draws; the other is its conjugate.
  const bool mirrored = ix == 0 && (iz < 0 || (iz == 0 && iy < 0));
  if (mirrored) iy = -iy, iz = -iz;
  const double k[3] = {g.kf[0] * double(ix), g.kf[1] * double(iy), g.kf[2] * double(iz)};
  const double kk = std::sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  const std::uint64_t id = (std::uint64_t(ix) * 2 * std::uint64_t(g.n[1]) + std::uint64_t(iy + g.n[1])) * 2 *
                               std::uint64_t(g.n[2]) +
                           std::uint64_t(iz + g.n[2]);
  std::uint64_t state = r.seed * 0xD1B54A32D192ED03ULL ^ id;
  splitmix64(state);
  const double two_pi = 6.283185307179586;
  double re[3], im[3];
  if (g.dims == 2) {
    // |omega_k|^2 = E(k) k kf_x kf_y / pi: the shell k..k+dk holds 2 pi k dk / (kf_x kf_y) modes of
    // energy |omega_k|^2 / (2 k^2) each.
    const double amp = std::sqrt(r.energy(kk) * kk * g.kf[0] * g.kf[1] / (two_pi / 2));
    const double phase = two_pi * uniform(state);
    re[0] = amp * std::cos(phase), im[0] = amp * std::sin(phase);
  } else {
    // |u_k|^2 = E(k) kf_x kf_y kf_z / (2 pi k^2): 4 pi k^2 dk / (kf_x kf_y kf_z) modes of energy |u_k|^2 / 2.
    const double amp = std::sqrt(r.energy(kk) * g.kf[0] * g.kf[1] * g.kf[2] / (two_pi * kk * kk));
    for (int d = 0; d < 3; ++d) {  // Gaussian components (Box-Muller), then projected onto k's normal plane
      const double rad = std::sqrt(-2.0 * std::log(uniform(state))), ph = two_pi * uniform(state);
      re[d] = rad * std::cos(ph), im[d] = rad * std::sin(ph);
    }
    double kr = 0, ki = 0;
    for (int d = 0; d < 3; ++d) kr += k[d] * re[d], ki += k[d] * im[d];
    double norm = 0;
    for (int d = 0; d < 3; ++d) {
      re[d] -= k[d] * kr / (kk * kk), im[d] -= k[d] * ki / (kk * kk);
      norm += re[d] * re[d] + im[d] * im[d];
    }
    norm = norm > 0 ? amp / std::sqrt(norm) : 0.0;
    for (int d = 0; d < 3; ++d) re[d] *= norm, im[d] *= norm;
  }
  for (int d = 0; d < comps; ++d) out[d] = {T(re[d]), T(mirrored ? -im[d] : im[d])};
}

}  // namespace eddy::spectral
