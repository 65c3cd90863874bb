#pragma once
/// Shell-averaged energy spectra: of the spectral solver's state (spectral::Solver::spectrum) and of a
/// physical velocity that another solver holds on the device (VelocitySpectrum: the LBM on a periodic box),
/// through the same shell sums (spectrum_k.hpp), so that both write the same spectra.h5.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/types.hpp"
#include "field/slab.hpp"
#include "spectral/grid.hpp"

namespace eddy::spectral {

/// The shell-averaged energy spectrum: shell j holds the modes with j - 1/2 <= |k| / dk < j + 1/2, dk the
/// smallest fundamental wave number; E(k_j) = (energy of the shell) / dk, so sum_j E(k_j) dk is the
/// kinetic energy exactly (Parseval).
struct Spectrum {
  double dk = 1.0;             ///< shell width [1/m]
  std::vector<double> k;       ///< shell wave numbers j dk [1/m]
  std::vector<double> energy;  ///< E(k) [m^3/s^2]
};

/// The shells of `g`'s spectrum: dk, and shells up to the corner mode (|k| of (nx/2, ny/2, nz/2)).
Spectrum spectrum_shells(const Grid& g);

/// The energy spectrum of a velocity on a periodic box (every mode, no truncation) given in physical space
/// on the device: on P ranks the velocity must be laid out as the spectral solver's physical blocks
/// (grid(): whole x rows; 3D z split over P2 and y over P1, 2D y over P), as a decomposition [1, P1, P2]
/// (3D) or [1, P] (2D) of parallel/decomposition.hpp gives them. Owns the transforms' plans and work areas
/// (slab_fft.hpp); the spectral array (dims fields) is allocated for each compute() and freed after it.
/// Collective over the ranks of the exchange.
class VelocitySpectrum {
 public:
  VelocitySpectrum(int dims, const Int3& cells, const Real3& length, field::TransposeExchange& exchange);
  ~VelocitySpectrum();
  /// This rank's block: its physical points are grid().points(), from (0, y0, a0) (3D) or (0, a0) (2D).
  const Grid& grid() const { return grid_; }
  /// The spectrum of `scale` x the velocity `u`: dims device arrays of grid().points() values (x fastest
  /// over the block), `stride` elements apart; with stride() they are transformed where they are, else
  /// copied first (dims fields more while the call runs).
  Spectrum compute(const double* u, index_t stride, double scale);
  /// The component stride that compute() transforms without a copy (slab_fft.hpp: real_stride()).
  index_t stride() const;
  /// Device memory held between calls (plans, work areas) and that a call adds while it runs (the
  /// transforms' output; and the copy, when the stride is not stride()), bytes.
  std::size_t bytes_held() const;
  std::size_t bytes_per_call() const;

 private:
  struct Impl;
  Grid grid_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace eddy::spectral
