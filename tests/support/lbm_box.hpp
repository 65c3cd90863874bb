#pragma once
// A small LBM block for the solver's unit tests: walls on y (the top one moving), periodic x and z, and a
// smooth start whose populations all differ from rest.
#include <cmath>
#include <string>

#include "core/types.hpp"
#include "lbm/lbm_solver.hpp"

namespace eddy::test {

/// 24 x 20 (2D) or 12 x 10 x 8 cells of `lattice` with `collision` and storage precision p, tau 0.56;
/// walls on y, the top one moving at (0.08, 0, 0.02): bulk, bounce-back and the moving-wall term.
inline lbm::Setup lbm_box(const std::string& lattice, const std::string& collision, Precision p) {
  lbm::Setup s;
  s.dims = lattice == "D2Q9" ? 2 : 3;
  s.cells = s.dims == 2 ? Int3{24, 20, 1} : Int3{12, 10, 8};
  s.lattice = lbm::lattice_names.parse(lattice, "lattice");
  s.collision = lbm::collision_names.parse(collision, "collision");
  s.precision = p;
  s.tau = 0.56;
  s.faces = {lbm::FaceKind::periodic,    lbm::FaceKind::periodic, lbm::FaceKind::wall,
             lbm::FaceKind::moving_wall, lbm::FaceKind::periodic, lbm::FaceKind::periodic};
  s.wall_velocity[3] = {0.08, 0.0, 0.02};
  return s;
}

/// A smooth start with density variations and velocity gradients (so the initial populations carry a
/// non-equilibrium part): every population differs from rest.
inline lbm::CellState lbm_start(index_t x, index_t y, index_t z) {
  const double a = 0.3 * x, b = 0.4 * y, c = 0.5 * z;
  return {0.01 * std::sin(a + b + c),
          {0.05 * std::sin(b) * std::cos(c), 0.04 * std::cos(a), 0.03 * std::sin(a + b)}};
}

}  // namespace eddy::test
