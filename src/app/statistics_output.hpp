#pragma once
/// Running statistics (output.statistics; src/README.md, Output files): per cell of each rank's box, FP64
/// sums of the sampled fields on the device (field/moments.hpp), one sample at every due step from
/// `start` on, written as time means into `stats/<name>_<step:08d>.h5` with an XDMF series
/// (`stats/stats.xmf`) on `write_every` and at the end of the run:
///   mean_velocity, mean_pressure and mean_density (LBM), reynolds_stress (<u_i u_j>: 3D xx xy xz yy yz
///   zz, 2D xx xy yy), mean_vorticity; attributes samples, t_start and t_end (the first and last sample);
///   with `average_over`, each of them also averaged over those directions: `profile_<dataset>` over the
///   directions left (slowest first, components last) and their cell centres `profile_<axis>`.
/// A cell's sums are its own, so they are the same on every decomposition; the profiles are exact sums
/// over the ranks (parallel::Comm::sum_exact), so they are too. The sums, the sample count and the window
/// go into every checkpoint, so N steps straight and N/2 + a restart (on any rank count) give the same
/// files bit for bit. Device memory: count() x 8 bytes per cell (3D LBM velocity, pressure and
/// reynolds_stress: 10 sums, 80 B a cell).
#include <memory>
#include <vector>

#include "app/model.hpp"
#include "io/hdf5/checkpoint.hpp"

namespace eddy::app {

class StatisticsOutput {
 public:
  /// The sums (continued from start.checkpoint on a restart that holds them, else from zero), the sampling
  /// and the writes on `simulation`. Nothing is registered when output.statistics is off. Collective.
  StatisticsOutput(Model& model, sim::Simulation& simulation, RunOutput& out, const config::RunSpec& spec,
                   const RunStart& start);
  ~StatisticsOutput();
  StatisticsOutput(const StatisticsOutput&) = delete;
  StatisticsOutput& operator=(const StatisticsOutput&) = delete;

  /// What a checkpoint holds of the statistics: the array `statistics` (the sums) with its info [samples,
  /// t_start, t_end, layout]; none when they are off. Valid until the next call.
  std::vector<io::CheckpointArray> checkpoint_arrays(const sim::Clock& clock);

 private:
  struct Sums;
  std::unique_ptr<Sums> sums_;
};

}  // namespace eddy::app
