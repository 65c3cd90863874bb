#pragma once
/// The pseudo-spectral Navier-Stokes solver on a periodic box: 2D vorticity-streamfunction and 3D
/// velocity (divergence form + projection), 2/3-rule dealiasing, integrating-factor RK3 (SSP) or RK4,
/// optional hyperviscosity and linear drag, FP64 or FP32 (spectral/navier_stokes_k.hpp has the equations).
///
/// The solver knows nothing of files, MPI or configs: the app gives it a Setup in physical units and a
/// field::TransposeExchange (the transposes and reductions of its slab or pencil decomposition) and reads
/// fields and diagnostics back through the accessors. Fields it hands out are this rank's block of physical
/// space (spectral/grid.hpp: x-y planes (slab) or x rows (pencil) in 3D, whole x rows in 2D), x fastest,
/// components adjacent.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/names.hpp"
#include "core/types.hpp"
#include "field/moments.hpp"
#include "field/slab.hpp"
#include "field/taylor_green.hpp"
#include "spectral/forcing_k.hpp"
#include "spectral/grid.hpp"
#include "spectral/initial_k.hpp"
#include "spectral/spectrum.hpp"

namespace eddy::spectral {

/// numerics.time_stepper: integrating-factor RK3 (SSP, Shu-Osher) or classical RK4.
enum class Stepper { rk3, rk4 };
inline constexpr Names<Stepper, 2> stepper_names{{"rk3", "rk4"}};

/// numerics.dealiasing: the 2/3 rule, or the 2/3 rule with random phase shifts (navier_stokes_k.hpp).
enum class Dealiasing { two_thirds, phase_shift };
inline constexpr Names<Dealiasing, 2> dealiasing_names{{"two_thirds", "phase_shift"}};

/// Runge-Kutta stages of a step.
inline int rk_stages(Stepper s) { return s == Stepper::rk3 ? 3 : 4; }

struct Setup {
  int dims = 2;                           ///< 2 or 3
  Int3 cells{64, 64, 1};                  ///< global grid points per direction
  Real3 length{1.0, 1.0, 1.0};            ///< box edges [m]
  Precision precision = Precision::fp64;  ///< storage and arithmetic (fp64 or fp32)
  Stepper stepper = Stepper::rk4;
  Dealiasing dealiasing = Dealiasing::two_thirds;
  double nu = 0.0;               ///< kinematic viscosity [m^2/s]
  double hyperviscosity = 0.0;   ///< nu_h [m^(2p)/s] of -nu_h (-lap)^p u
  int hyperviscosity_order = 2;  ///< p
  double drag = 0.0;             ///< mu [1/s] of -mu u
  Forcing forcing{};             ///< body force (spectral/forcing_k.hpp)
  bool overlap = true;  ///< several ranks: transposes overlapped with the FFTs (spectral/slab_fft.hpp)
};

/// Volume averages and maxima over the whole box (every rank gets the same values).
struct Stats {
  double kinetic_energy = 0.0;  ///< <|u|^2> / 2 [m^2/s^2]
  double enstrophy = 0.0;       ///< <|omega|^2> / 2 [1/s^2]
  double dissipation = 0.0;     ///< 2 nu enstrophy [m^2/s^3]
  double energy_loss = 0.0;     ///< -dE/dt of the linear terms (viscosity, hyperviscosity, drag) [m^2/s^3]
  double max_velocity = 0.0;    ///< max |u| [m/s]
  double max_component[3] = {0.0, 0.0, 0.0};  ///< max |u_i| [m/s]
  double nonfinite = 0.0;                     ///< grid points with NaN/Inf velocity
  double injection = 0.0;                     ///< energy injection rate of the force, <f . u> [m^2/s^3]
  double band_energy = 0.0;  ///< kinetic energy of the modes in the forced band (band_limited) [m^2/s^2]
  /// CFL number dt sum_i max|u_i| / dx_i for time step dt.
  double cfl(double dt, const Real3& dx) const;
};

/// Moments of the longitudinal velocity derivatives du_i/dx_i (3D), volume averages.
struct GradientMoments {
  double m2[3] = {0.0, 0.0, 0.0};  ///< <(du_i/dx_i)^2> [1/s^2]
  double m3[3] = {0.0, 0.0, 0.0};  ///< <(du_i/dx_i)^3> [1/s^3]
  /// Velocity-derivative skewness <(du/dx)^3> / <(du/dx)^2>^(3/2), averaged over the three directions.
  double skewness() const;
};

class Solver {
 public:
  virtual ~Solver() = default;
  /// Set the state from a physical velocity on this rank's slab (dims components per point, m/s); it
  /// is projected onto divergence-free fields and 2/3-truncated. Resets the step count.
  virtual void set_velocity(const std::vector<double>& u) = 0;
  /// Set the state from the Taylor-Green velocity `tg` (tg.dims must be the solver's), sampled at the
  /// cell centres (i + 1/2) L_d / n_d of this rank's block: the same state as set_velocity with the
  /// host-built array, but evaluated point by point on the device, written in the solver's precision
  /// straight into the physical work fields the forward transform reads (no host array and no FP64
  /// device copy: at 1024^3 those were 25.8 GB each). The formula is field::TaylorGreen's own (EDDY_HD),
  /// which the LBM and the validation use on the host; a solver may include cases/ headers that need
  /// nothing above core/ and backend/macros.hpp. Another analytic field would be one more such method
  /// over the same launch (spectral_solver.cpp: launch_sample_velocity takes any EDDY_HD velocity(x)).
  virtual void set_taylor_green(const field::TaylorGreen& tg) = 0;
  /// Set the state to rest (zero velocity). Resets the step count.
  virtual void set_rest() = 0;
  /// Set the state to a random field with the spectrum `r` (same on every decomposition).
  virtual void set_random_spectrum(const RandomSpectrum& r) = 0;
  /// Advance one time step of dt seconds. On a GPU with one rank and no band-limited force, the step's
  /// device work is recorded as a graph once and replayed while dt stays the same (backend/graph.hpp).
  virtual void step(double dt) = 0;
  /// Step graphs on (the default) or off (eddy bench times both).
  virtual void set_graphs(bool on) = 0;
  /// How many times a step was recorded as a graph (0 on the CPU backend or where the step cannot be).
  virtual int graph_recordings() const = 0;
  virtual long steps() const = 0;
  /// Physical velocity on this rank's slab: dims components per point [m/s].
  virtual void velocity(std::vector<double>& u) = 0;
  /// Physical vorticity on this rank's slab: one component per point in 2D, three in 3D [1/s].
  virtual void vorticity(std::vector<double>& w) = 0;
  /// velocity() and vorticity() at the points `points` of this rank's slab alone (indices of a point,
  /// x fastest over the slab): bitwise their values there. The transforms run as for the whole field;
  /// only those points come to the host (probes). Collective, as the transforms are.
  virtual void velocity_at(const std::vector<index_t>& points, std::vector<double>& u) = 0;
  virtual void vorticity_at(const std::vector<index_t>& points, std::vector<double>& w) = 0;
  /// The Q-criterion Q = (|Omega|^2 - |S|^2) / 2 = -A_ij A_ji / 2 of the velocity gradient A_ij = du_i/dx_j
  /// (i k_j u_i, 9 backward transforms), S and Omega its symmetric and antisymmetric parts, on this rank's
  /// slab, one value per point [1/s^2]; 3D only (Error in 2D). `_at`: at `points` alone, bitwise the same.
  /// Collective, as the transforms are.
  virtual void q_criterion(std::vector<double>& q) = 0;
  virtual void q_criterion_at(const std::vector<index_t>& points, std::vector<double>& q) = 0;
  /// Add this rank's slab to running sums (field/moments.hpp: velocity, stress, vorticity; physical
  /// units), on the device: the values velocity() and vorticity() give, bitwise. Collective, as the
  /// transforms are.
  virtual void add_moments(const field::MomentView& sums) = 0;
  /// Diagnostics, computed on the device: energies by Parseval, maxima from the physical velocity.
  /// Collective over the ranks of the exchange.
  virtual Stats stats() = 0;
  /// The energy spectrum, computed on the device and summed over the ranks. Collective.
  virtual Spectrum spectrum() = 0;
  /// Moments of du_i/dx_i in physical space (3D; zeros in 2D), on the device. Collective.
  virtual GradientMoments gradient_moments() = 0;
  /// The transforms of one step, and nothing else (eddy bench). With `pruned`, the ones the step runs
  /// (transforms_per_step(); they skip the lines outside the dealiasing mask's box: spectral/slab_fft.hpp).
  /// Else the floor a step's time is compared against: the transforms of the classical pseudo-spectral
  /// step, full (floor_transforms_per_step()). `zero_first` zeroes the work buffers, which the transforms
  /// then keep at zero (no overflow however often they repeat). Leaves the state as it is.
  virtual void transforms_of_step(bool zero_first, bool pruned) = 0;
  /// Transforms the step runs (forward + backward, one per field): per stage 3D 3 + 5
  /// (navier_stokes_k.hpp), 2D 4 + 1.
  virtual int transforms_per_step() const = 0;
  /// Transforms of the floor: the classical step's, 9 a stage in 3D (u x omega: 6 backward, 3 forward;
  /// the 36 of RK4 that the cuFFT-alone reference figures count: cases/benchmarks/README.md, Reference
  /// figures), 5 in 2D (as the step's).
  virtual int floor_transforms_per_step() const = 0;
  /// The state for a checkpoint: this rank's block of the spectral array [a][b_local][c] (grid.hpp), per
  /// mode state_values() numbers of state_bytes() bytes each (the components' real and imaginary parts).
  virtual std::vector<unsigned char> save_state() = 0;
  /// Restore a save_state() block (of any earlier decomposition, re-read for this one) at step `step`.
  virtual void load_state(const std::vector<unsigned char>& block, long step) = 0;
  virtual int state_values() const = 0;
  virtual int state_bytes() const = 0;
  virtual const Grid& grid() const = 0;
  virtual const Setup& setup() const = 0;
  /// Device memory held, bytes.
  virtual std::size_t bytes_allocated() const = 0;
};

/// Build the solver for the setup's precision. The exchange must outlive the solver.
std::unique_ptr<Solver> make_solver(const Setup& s, field::TransposeExchange& exchange);

/// The fields a stage's backward transforms take (2D 4, 3D 3) and its forward transforms (2D 1, 3D 5).
constexpr int stage_inputs(int dims) { return dims == 2 ? 4 : 3; }
constexpr int stage_products(int dims) { return dims == 2 ? 1 : 5; }

/// What the solver of a setup holds and moves on one rank of a process grid [1, p1, p2], found without
/// building it (`eddy plan`): the arrays of spectral_solver.cpp and slab_fft.cpp for the rank's share
/// of the points and modes. Not counted: the FFT library's work area (cuFFT: well under one field).
struct Footprint {
  index_t points = 0;           ///< physical points of the rank (the largest share)
  index_t modes = 0;            ///< wave-number modes of the rank (the r2c half axis, largest share)
  double device_bytes = 0;      ///< held through the run
  double transient_bytes = 0;   ///< the largest temporary device array on top (field output)
  double host_bytes = 0;        ///< the largest host array (the velocity of a field output, the state)
  int transforms_per_step = 0;  ///< 3D RK4: 4 stages x (3 + 5)
  /// Per transpose of a transform: {ranks of the group it runs in, bytes this rank sends}. Slab: one
  /// over all ranks; pencil: within the row (p1 ranks), then within the column (p2 ranks).
  std::vector<std::pair<int, double>> transposes;
};
/// `packed_sides`: the sides of a transpose the transport packs into segments of its own: 0 one-sided
/// copies between the layouts (`peer`), 1 the a-slab side (MPI on the CPU backend), 2 both (GPU buffers).
Footprint footprint(const Setup& s, int p1, int p2, int packed_sides);

/// Stability limit of the stepper on the imaginary axis (radius sqrt(3) for rk3, 2 sqrt(2) for rk4) as a
/// CFL number dt sum_i max|u_i| / dx_i, for the largest kept wave number (2 pi / 3) / dx (two_thirds:
/// rk3 0.83, rk4 1.35) or sqrt(2) (2 pi / 3) / dx along an axis (phase_shift: rk3 0.58, rk4 0.95).
double cfl_limit(Stepper stepper, Dealiasing dealiasing);

}  // namespace eddy::spectral
