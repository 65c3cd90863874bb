#pragma once
/// The spectral case a RunSpec describes: the solver setup, its slab decomposition, the initial condition
/// and the time step (shared by `eddy run`, `eddy bench` and `eddy optimize`).
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/config/run_spec.hpp"
#include "io/hdf5/block.hpp"
#include "parallel/comm.hpp"
#include "parallel/decomposition.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::app {

/// Everything the spectral run derives from the config.
struct SpectralCase {
  spectral::Setup setup;
  parallel::Decomposition slabs;  ///< physical-space blocks: slabs (whole x-y planes; 2D x rows) or x-pencils
  int p1 = 1;                     ///< process-grid rows P1 (parallel.ranks [1, P1, P2]): 1 slab, > 1 pencil
  Real3 dx{0.0, 0.0, 0.0};        ///< grid spacing [m] (0 along unused directions)
  double velocity = 1.0;          ///< initial amplitude U [m/s]
  double max_cfl = 0.0;
};

/// The spectral solver's rules on a loaded config, with the key and origin of the value that breaks one
/// (InputError): a CFL number within the stepper's stability limit, a Kolmogorov forcing at a whole wave
/// number n 2 pi / L_y that the dealiasing keeps.
void check_spectral_rules(const config::RunSpec& spec);

/// Setup and decomposition from the config (InputError for what the solver cannot do, before anything is
/// written). Collective.
SpectralCase make_spectral_case(const config::RunSpec& spec, const parallel::Comm& comm);
/// The same for rank `rank` of `size`, without MPI (eddy plan); parallel.autotune is not applied.
SpectralCase make_spectral_case(const config::RunSpec& spec, int size, int rank);

/// The process grid [1, P1, P2] of P ranks on a periodic box of `cells` (parallel.ranks; x is never split)
/// for the distributed transforms (spectral/slab_fft.hpp) of the spectral solver or of the LBM's energy
/// spectra (`who`, named by the messages). Slab (P1 = 1): planes of the slowest direction (z in 3D, y in
/// 2D) in physical space; in wave-number space rows of ky (3D) or kx = 0..nx/2 (2D). Pencil (3D, P1 > 1):
/// physical x-pencils (y over P1, z over P2), spectral z-pencils (kx over P1, ky over P2). Uneven splits
/// are fine; every rank needs a part of every split direction. Left out: slab while the ranks fit
/// (P <= nz and P <= ny), else the pencil grid with the most ranks P2 along z that fit and divide P.
/// InputError names parallel.ranks or domain.cells.
std::vector<long> transform_process_grid(const config::RunSpec& spec, int dims, const Int3& cells, int P,
                                         const std::string& who);

/// The spectral state as a block of the global array [a][b][c] (x = c fastest, y = b, z = a): checkpoints
/// store it so, and any rank count reads its own rows back.
inline io::Block state_block(const spectral::Grid& g) {
  io::Block b = io::Block::whole(3, {g.nc, g.nb, g.na});
  b.offset = {g.c0, g.b0, 0};
  b.extent = {g.nc_local, g.nb_local, g.na};
  return b;
}

/// parallel.autotune: every process grid [1, P1, P2] (P1 P2 = P) the 3D solver can run on the box of
/// `spec` is timed with the transforms of one step (Solver::transforms_of_step: pruned and overlapped
/// as the solver runs them, through a fresh exchange of parallel.comm; 3 warm-up passes, which also let
/// parallel.comm: auto settle, then the median of 3, the slowest rank's), and the fastest is returned
/// (ties: the smaller P1, slabs first), as cuDecomp's autotuner chooses its grid. Every rank returns the
/// same grid. Since the choice follows measured times, two runs may decompose differently; their results
/// then agree to round-off, not bitwise, as those of any two grids do. make_spectral_case calls it when
/// parallel.autotune is on (3D, several ranks, parallel.ranks left out). Collective.
std::vector<long> tune_process_grid(const config::RunSpec& spec, const parallel::Comm& comm);

/// Set the configured initial condition.
void initialize(spectral::Solver& solver, const config::RunSpec& spec, const SpectralCase& c);

/// The time step: numerics.dt, or numerics.cfl over the initial velocity (then, with an end time, shortened
/// so that a whole number of steps reaches it). Refuses a CFL above the stepper's limit.
double time_step(const config::RunSpec& spec, const SpectralCase& c, const spectral::Stats& s0);

}  // namespace eddy::app
