#pragma once
/// The time series of a run in HDF5 (src/README.md, Output files): `probes.h5` (output.probes: fields
/// interpolated at points) and `spectra.h5` (output.spectra: the shell-averaged energy spectrum), one
/// io::SeriesFile each, a row per due step, continued by a restart with no gap and no duplicate.
///
/// Probes: the value at a point is the trilinear (bilinear in 2D) interpolation of the cell-centre values
/// around it, cell i centred at (i + 1/2) dx along each axis; past the outermost centre of an axis that
/// is not periodic, the nearest interior cells' values (no extrapolation); across a periodic axis the
/// stencil wraps. Each of the 2^d corner values is contributed by the one rank that owns the cell (the
/// others add zeros, and a sum of one term and zeros is exact), and the weights are applied after the
/// reduction in a fixed order, so the series is bitwise the same for every rank count and decomposition
/// of fields that are. A rank holds O(points x 2^d x components) values; rank 0 writes the file.
#include <array>
#include <memory>
#include <vector>

#include "app/model.hpp"
#include "io/hdf5/series_file.hpp"

namespace eddy::app {

/// The 2^dims cells around a point and their weights: corner c takes the upper cell along axis a where
/// bit a of c is set; weight[c] = prod_a (bit ? t_a : 1 - t_a), t_a the point's fraction between the two
/// centres.
struct ProbeStencil {
  int corners = 4;
  std::array<Int3, 8> cell{};  ///< global cell indices
  std::array<double, 8> weight{};
};

/// The stencil of `point` [m] (one coordinate per dimension, inside [0, L]) on a grid of `cells` with
/// cell size `spacing`, wrapping the `periodic` axes.
ProbeStencil probe_stencil(const std::vector<double>& point, int dims, const Int3& cells,
                           const Real3& spacing, const std::array<bool, 3>& periodic);

/// What probes.h5 holds for this run: the columns of spec.output.probes (a field: (points, components)
/// per row), the `points` attribute and the run's text attributes. InputError for a field `model` cannot
/// sample.
io::SeriesLayout probes_layout(const Model& model, const config::RunSpec& spec);
/// What spectra.h5 holds: `k` and a row of `energy_spectrum` (and in 2D `enstrophy_spectrum`, k^2 E(k))
/// of the model's spectrum (Model::globals(): `energy_spectrum`), its shells spectral::spectrum_shells of
/// the box of `spec`.
io::SeriesLayout spectra_layout(const config::RunSpec& spec);

/// A restart, before anything is written: probes.h5 and spectra.h5, where configured, are files the run
/// can continue (io::SeriesFile::check_append), else InputError. Collective.
void check_resume_series(Model& model, const config::RunSpec& spec, const RunOptions& opt,
                         const parallel::Comm& comm);

/// output.probes and output.spectra on `simulation` (on their schedules, including the initial state of a
/// fresh start), writing into `out`'s directory; lives while the simulation runs. Collective.
class SeriesOutputs {
 public:
  SeriesOutputs(Model& model, sim::Simulation& simulation, const RunOutput& out, const config::RunSpec& spec);
  ~SeriesOutputs();
  SeriesOutputs(const SeriesOutputs&) = delete;
  SeriesOutputs& operator=(const SeriesOutputs&) = delete;

 private:
  struct Probes;
  struct Spectra;
  std::unique_ptr<Probes> probes_;
  std::unique_ptr<Spectra> spectra_;
};

}  // namespace eddy::app
