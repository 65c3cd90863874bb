#pragma once
/// The LBM case a RunSpec describes: lattice units, the solver setup and the initial condition.
#include <memory>
#include <string>

#include "field/exchange.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/units.hpp"
#include "parallel/comm.hpp"
#include "parallel/decomposition.hpp"
#include "spectral/spectrum.hpp"

namespace eddy::app {

/// Everything the LBM run derives from the config.
struct LbmCase {
  lbm::Units units;
  lbm::Setup setup;
  io::Block block;          ///< the global grid and this rank's box of it
  double length_ref = 1.0;  ///< reference length L [m]
  parallel::Decomposition decomposition;
  std::unique_ptr<field::Exchanger> exchanger;  ///< ghost populations between ranks (parallel.comm)
};

/// The lattice units of the config: dx from domain.cells and domain.length, dt from the lattice velocity.
lbm::Units lbm_units(const config::RunSpec& spec);

/// The LBM's rules on a loaded config, with the key and origin of the value that breaks one (InputError):
/// a lattice of the domain's dimension, a lattice Mach number u_lb sqrt(3) <= numerics.max_mach, a
/// relaxation time above lbm::Units::min_tau, and what numerics.storage: moments supports (the
/// regularized collision, fp64 or fp32, periodic faces, walls and moving walls).
void check_lbm_rules(const config::RunSpec& spec);

/// Lattice units, decomposition and solver setup from the config (InputError for what the LBM cannot
/// do, before anything is written). Collective.
LbmCase make_lbm_case(const config::RunSpec& spec, const parallel::Comm& comm);
/// The same for rank `rank` of `size`, without MPI and without an exchanger (eddy plan).
LbmCase make_lbm_case(const config::RunSpec& spec, int size, int rank);

/// The LBM's energy spectra (output.spectra, spectral/spectrum.hpp) on the blocks of a case: the
/// transforms' exchange (parallel.comm) and plans. The blocks must be the transforms' (make_lbm_case
/// decomposes so with output.spectra; Error otherwise). Collective, as compute() is.
class LbmSpectrum {
 public:
  LbmSpectrum(const config::RunSpec& spec, const LbmCase& c, const parallel::Comm& comm);
  ~LbmSpectrum();
  /// The spectrum of the velocity [m/s] the field files would hold: one sample of the solver's velocity
  /// sums (Solver::add_moments, bitwise its field values) on the device, transformed there.
  spectral::Spectrum compute(const lbm::Solver& solver);
  /// Whether the blocks of `c` are the transforms' (a periodic box whose ranks hold whole x rows).
  static bool fits(const LbmCase& c);

 private:
  std::unique_ptr<field::TransposeExchange> exchange_;
  std::unique_ptr<spectral::VelocitySpectrum> spectrum_;
  int dims_ = 3;
  double velocity_unit_ = 1.0;
};

/// The scheme a checkpoint of the LBM records (io::CheckpointMeta::scheme): the lattice ("D3Q19"), with
/// "/moments" for moment storage ("D3Q19/moments"), so a restart across storages is refused.
std::string checkpoint_scheme(const lbm::Setup& s);

/// The configured initial condition in lattice units, per interior cell.
lbm::InitialCondition initial_condition(const config::RunSpec& spec, const LbmCase& c);
/// The Taylor-Green initial condition of the config (initial.type: taylor_green), for the device.
lbm::TaylorGreenCells taylor_green_cells(const config::RunSpec& spec, const LbmCase& c);
/// Set the solver to the configured initial condition: Taylor-Green sampled on the device, the others
/// through initial_condition on the host.
void initialize(lbm::Solver& solver, const config::RunSpec& spec, const LbmCase& c);

}  // namespace eddy::app
