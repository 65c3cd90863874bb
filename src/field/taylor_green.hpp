#pragma once
/// The Taylor-Green vortex: initial field and, in 2D, the exact decaying solution.
///
/// 2D (Taylor & Green 1937): on [0, L]^2 with k = 2 pi / L,
///   u =  U sin(kx) cos(ky) F(t),  v = -U cos(kx) sin(ky) F(t),  F(t) = exp(-2 nu k^2 t),
///   p = p0 + rho U^2 / 4 (cos 2kx + cos 2ky) F(t)^2,
/// an exact solution of the incompressible Navier-Stokes equations.
/// 3D (Brachet et al. 1983; the HiOCFD C3.5 case): on [0, L]^3,
///   u = U sin(kx) cos(ky) cos(kz), v = -U cos(kx) sin(ky) cos(kz), w = 0,
///   p = p0 + rho U^2 / 16 (cos 2kx + cos 2ky)(cos 2kz + 2),
/// the initial condition only (the flow transitions to turbulence).
///
/// EDDY_HD: the host (LBM initial state, validation) and device kernels (the spectral solver's initial
/// field, spectral::Solver::set_taylor_green, evaluated point by point on the device) use this one formula.
#include <cmath>

#include "backend/macros.hpp"
#include "core/types.hpp"

namespace eddy::field {

struct TaylorGreen {
  double U = 1.0;    ///< amplitude [m/s]
  double L = 1.0;    ///< period (box edge) [m]
  double nu = 0.0;   ///< kinematic viscosity [m^2/s]
  double rho = 1.0;  ///< density [kg/m^3]
  int dims = 2;

  EDDY_HD double k() const { return 2.0 * M_PI / L; }
  /// Decay factor of the 2D velocity at time t.
  EDDY_HD double decay(double t) const { return std::exp(-2.0 * nu * k() * k() * t); }

  /// Velocity at point x at time t (2D exact; 3D: t must be 0).
  EDDY_HD Real3 velocity(const Real3& x, double t = 0.0) const {
    const double a = k() * x[0], b = k() * x[1], c = k() * x[2];
    if (dims == 2) {
      const double f = U * decay(t);
      return {f * std::sin(a) * std::cos(b), -f * std::cos(a) * std::sin(b), 0.0};
    }
    return {U * std::sin(a) * std::cos(b) * std::cos(c), -U * std::cos(a) * std::sin(b) * std::cos(c), 0.0};
  }
  /// Pressure deviation p - p0 at point x at time t.
  EDDY_HD double pressure(const Real3& x, double t = 0.0) const {
    const double a = 2 * k() * x[0], b = 2 * k() * x[1], c = 2 * k() * x[2];
    if (dims == 2) return rho * U * U / 4.0 * (std::cos(a) + std::cos(b)) * decay(t) * decay(t);
    return rho * U * U / 16.0 * (std::cos(a) + std::cos(b)) * (std::cos(c) + 2.0);
  }
};

}  // namespace eddy::field
