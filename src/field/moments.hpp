#pragma once
/// Running sums of sampled cell values for time statistics (output.statistics): per cell of a rank's
/// block, FP64 sums of the density deviation, the velocity, the products u_i u_j and the vorticity
/// over the samples taken, added on the device by the solvers (lbm::Solver::add_moments,
/// spectral::Solver::add_moments) from the values their field output gives. A cell's sums are its own:
/// they are the same for every decomposition, and 10^6 samples of O(1) values lose at most ~1e-10 of
/// their relative precision to rounding (FP64: 2^-53 per addition).
#include "backend/macros.hpp"
#include "core/types.hpp"

namespace eddy::field {

/// Which sums a cell carries, adjacent in this order (count() in all): the density deviation rho - 1
/// (LBM), the dims velocity components, the products u_i u_j for i <= j (3D: xx xy xz yy yz zz, 2D:
/// xx xy yy) and the vorticity components (1 in 2D, 3 in 3D).
struct MomentLayout {
  int dims = 3;
  bool density = false;
  bool velocity = false;
  bool stress = false;
  int vorticity = 0;  ///< components (0: none)

  EDDY_HD int stress_components() const { return dims * (dims + 1) / 2; }
  EDDY_HD int velocity_slot() const { return density ? 1 : 0; }
  EDDY_HD int stress_slot() const { return velocity_slot() + (velocity ? dims : 0); }
  EDDY_HD int vorticity_slot() const { return stress_slot() + (stress ? stress_components() : 0); }
  EDDY_HD int count() const { return vorticity_slot() + vorticity; }
};

/// A rank's sums on the device: count() arrays of `cells` values, one per slot (slot-major, cells x
/// fastest over the block), so that a sample's reads and writes coalesce (interleaved per cell they ran
/// at half the bandwidth on an H200).
struct MomentView {
  double* sums = nullptr;
  index_t cells = 0;
  MomentLayout layout;

  EDDY_HD double& at(index_t cell, int slot) const { return sums[index_t(slot) * cells + cell]; }
  /// Add one sample of cell `cell`: the density deviation and the velocity (layout.dims components).
  EDDY_HD void add_flow(index_t cell, double drho, const double (&u)[3]) const {
    const int dims = layout.dims < 3 ? layout.dims : 3;  // at most u's 3 (so the compiler knows it too)
    if (layout.density) at(cell, 0) += drho;
    if (layout.velocity)
      for (int i = 0; i < dims; ++i) at(cell, layout.velocity_slot() + i) += u[i];
    if (layout.stress) {
      int k = layout.stress_slot();
      for (int i = 0; i < dims; ++i)
        for (int j = i; j < dims; ++j) at(cell, k++) += u[i] * u[j];
    }
  }
  /// Add one sample of the vorticity (layout.vorticity components) of cell `cell`.
  EDDY_HD void add_vorticity(index_t cell, const double* w) const {
    for (int i = 0; i < layout.vorticity; ++i) at(cell, layout.vorticity_slot() + i) += w[i];
  }
};

}  // namespace eddy::field
