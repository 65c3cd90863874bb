#pragma once
/// Physical <-> lattice units for the LBM.
///
/// The config is physical: reference length L and velocity U, Reynolds number Re, density rho0, and
/// the grid spacing dx. The lattice velocity u_lb of the reference velocity fixes the time step
/// (acoustic scaling): dt = u_lb dx / U. Then nu_lb = nu dt / dx^2 = u_lb (L/dx) / Re and
/// tau = 3 nu_lb + 1/2 (c_s^2 = 1/3).
#include <cmath>

namespace eddy::lbm {

struct Units {
  double dx = 1.0;        ///< grid spacing [m]
  double dt = 1.0;        ///< time step [s]
  double u_lb = 0.1;      ///< reference velocity in lattice units
  double velocity = 1.0;  ///< reference velocity U [m/s]
  double density = 1.0;   ///< reference density [kg/m^3]
  double nu = 0.0;        ///< kinematic viscosity [m^2/s]
  double nu_lb = 0.0;     ///< kinematic viscosity, lattice units
  double tau = 0.5;       ///< BGK relaxation time

  /// The smallest relaxation time the solver takes: the viscosity nu_lb = (tau - 1/2) / 3 vanishes at
  /// tau = 1/2, where every collision operator here loses its stability.
  static constexpr double min_tau = 0.5 + 1e-6;

  /// Units from the reference length and velocity, Re, the spacing and the lattice velocity.
  static Units make(double length_ref, double velocity_ref, double reynolds, double dx, double u_lb,
                    double density) {
    Units u;
    u.dx = dx;
    u.u_lb = u_lb;
    u.velocity = velocity_ref;
    u.density = density;
    u.nu = velocity_ref * length_ref / reynolds;
    u.dt = u_lb * dx / velocity_ref;
    u.nu_lb = u.nu * u.dt / (dx * dx);
    u.tau = 3.0 * u.nu_lb + 0.5;
    return u;
  }
  /// Lattice velocity -> m/s.
  double to_velocity(double v_lb) const { return v_lb * dx / dt; }
  /// Physical velocity -> lattice.
  double to_lattice_velocity(double v) const { return v * dt / dx; }
  /// Lattice density -> kg/m^3.
  double to_density(double rho_lb) const { return rho_lb * density; }
  /// Pressure deviation p - p0 [Pa] of a lattice density deviation: c_s^2 drho, scaled.
  double to_pressure(double drho_lb) const { return drho_lb / 3.0 * density * (dx / dt) * (dx / dt); }
  /// Lattice Mach number of a lattice speed.
  static double mach(double speed_lb) { return speed_lb * std::sqrt(3.0); }
};

}  // namespace eddy::lbm
