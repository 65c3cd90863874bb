#pragma once
/// RunSpec: the validated, typed form of a YAML run configuration (src/README.md, Config conventions).
///
/// Plain structs with the default beside every field. io/config/config.cpp fills them from YAML,
/// checks every value and refuses unknown keys; everything downstream (app, solvers, writers) reads
/// only these structs. Physical units throughout; the solvers derive lattice/solver units.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace eddy::config {

/// "every" of a schedule: a step count (`100`) or a physical time interval (`0.5t`); see core/schedule.hpp.
using Schedule = eddy::Schedule;

/// One face of the box: `x_min`, `x_max`, `y_min`, ... (LBM).
struct FaceSpec {
  std::string type = "wall";        ///< wall | moving_wall | periodic | velocity_inlet | pressure_outlet |
                                    ///< outflow (LBM open boundaries, lbm/boundary_k.hpp)
  std::vector<double> velocity{};   ///< moving_wall: wall velocity; velocity_inlet: inflow velocity (the
                                    ///< peak of a parabolic profile) [m/s], one entry per dimension
  std::string profile = "uniform";  ///< velocity_inlet: uniform | parabolic (4 s (1 - s) across every
                                    ///< tangential direction of the face, s the fraction of the edge)
  double ramp_time = 0.0;           ///< velocity_inlet: time [s] over which the inflow rises smoothly
                                    ///< from 0, (1 - cos(pi t / T)) / 2; 0 = at full speed from the start
  double pressure = 0.0;            ///< pressure_outlet: pressure [Pa] relative to the reference pressure
};

struct DomainSpec {
  std::vector<long> cells{128, 128};  ///< cells per direction [nx, ny] or [nx, ny, nz]
  std::vector<double> length{1.0};    ///< physical edge length(s) [m]; one value = the same for every edge;
                                      ///< the loader normalises to one entry per dimension
};

/// Spectral forcing (a body force in the momentum equation; 2D: its curl in the vorticity equation).
struct ForcingSpec {
  std::string type = "none";    ///< none | kolmogorov (f = F sin(k_f y) x, 2D and 3D) | band_limited
                                ///< (constant energy injection rate into the modes with k_a <= |k| <= k_b)
  double amplitude = 1.0;       ///< kolmogorov: F [m/s^2]
  double wavenumber = 4.0;      ///< kolmogorov: k_f [1/m], a whole multiple of 2 pi / L_y
  double injection_rate = 0.1;  ///< band_limited: energy injection rate eps [m^2/s^3]
  std::vector<double> band{0.5, 2.5};  ///< band_limited: [k_a, k_b] [1/m] of the forced shell
};

struct PhysicsSpec {
  double reynolds = 1000.0;          ///< Reynolds number Re = U L / nu with the reference velocity and length
  double velocity = 1.0;             ///< reference velocity U [m/s] (lid speed, TGV amplitude)
  double reference_length = 0.0;     ///< reference length L [m]; 0 = domain edge length along x
  double density = 1.0;              ///< reference density [kg/m^3]
  double drag = 0.0;                 ///< spectral: linear drag mu [1/s] of the term -mu u (0 = none)
  ForcingSpec forcing{};             ///< spectral: body force (none by default)
  std::vector<double> body_force{};  ///< LBM: uniform body acceleration g [m/s^2], one entry per
                                     ///< dimension (empty = none); applied as the force density
                                     ///< density * g with Guo forcing (a uniform pressure gradient)
};

/// LBM large-eddy model.
struct LesSpec {
  std::string model = "none";  ///< none | smagorinsky (nu_t = (C_s dx)^2 |S|, S from the local
                               ///< non-equilibrium stress)
  double constant = 0.1;       ///< Smagorinsky constant C_s (typical 0.1-0.17)
};

struct NumericsSpec {
  std::string precision = "fp64";  ///< fp64 | fp32 | fp32/fp16 (LBM: 16-bit storage, FP32 arithmetic)
  std::string lattice = "auto";    ///< LBM: D2Q9 | D3Q19 | D3Q27 | auto (D2Q9 in 2D, D3Q19 in 3D);
                                   ///< the loader resolves auto, so an LBM RunSpec never holds it
  std::string collision = "bgk";   ///< LBM: bgk | trt | regularized (recursive regularized,
                                   ///< Malaspinas 2015: stable at high Re / tau near 1/2)
  /// LBM: what a cell stores: populations | moments (density, velocity and the non-equilibrium stress,
  /// 6 numbers a cell in 2D and 10 in 3D, from which the regularized collision rebuilds the populations;
  /// numerics.collision regularized only; periodic faces, walls and moving walls; fp64, fp32).
  std::string storage = "populations";
  double lattice_velocity = 0.1;  ///< LBM: reference velocity in lattice units (sets dt; Mach = u_lb*sqrt(3))
  double max_mach = 0.3;          ///< LBM: refuse a configuration whose lattice Mach number exceeds this
  double trt_magic = 0.1875;      ///< LBM: TRT magic parameter Lambda (3/16: walls exactly half-way)
  /// LBM channel (initial.type channel): refuse a grid whose first cell centre lies farther from the wall
  /// than this in wall units, dx / 2 u_tau / nu (1: wall-resolved DNS, dx+ <= 2); 0 = no check.
  double max_first_cell_yplus = 0.0;
  LesSpec les{};                     ///< LBM: large-eddy model (with any collision)
  std::string time_stepper = "rk4";  ///< spectral: rk3 (SSP, Shu-Osher) | rk4 (classical); viscous terms
                                     ///< integrated exactly (integrating factor)
  double dt = 0.0;                   ///< spectral: fixed time step [s]; 0 = from numerics.cfl and the
                                     ///< initial velocity (then fixed for the run)
  double cfl = 0.5;                  ///< spectral: target CFL number dt sum_i max|u_i| / dx_i when dt = 0
  double max_cfl = 0.0;              ///< spectral: a larger CFL is refused at the start (exit 2) and stops
                                     ///< the run (exit 3); 0 = the stepper's stability limit (two_thirds:
                                     ///< rk3 0.83, rk4 1.35; phase_shift: rk3 0.58, rk4 0.95)
  std::string dealiasing =
      "two_thirds";               ///< spectral: two_thirds (2/3 rule: exact energy conservation of the
                                  ///< nonlinear term) | phase_shift (half-cell shifts in alternate
                                  ///< stages + spherical truncation at sqrt(2)/3 N: 1.41x the kept k)
  double hyperviscosity = 0.0;    ///< spectral: nu_h [m^(2p)/s] of the term -nu_h (-lap)^p u (0 = none)
  long hyperviscosity_order = 2;  ///< spectral: the power p of the hyperviscous term (>= 2)
};

struct BoundarySpec {
  FaceSpec x_min{}, x_max{}, y_min{}, y_max{}, z_min{},
      z_max{};  ///< default: all walls; z faces unused in 2D;
                ///< solver spectral: set to periodic by the loader
};

struct InitialSpec {
  std::string type = "rest";      ///< rest | taylor_green | random_spectrum (spectral) | inflow (LBM:
                                  ///< the first velocity_inlet's profile at full speed in every cell) |
                                  ///< channel (LBM: walls at y, Reichardt's mean profile in wall units of
                                  ///< u_tau = physics.velocity with near-wall streaks that trip transition)
  double amplitude = 0.0;         ///< initial velocity amplitude [m/s]; 0 = physics.velocity
                                  ///< (random_spectrum: kinetic energy amplitude^2 / 2)
  double peak_wavenumber = 12.0;  ///< random_spectrum: k_p [1/m] of the energy spectrum
                                  ///< E(k) ~ (k/k_p)^(2s+1) exp(-(s+1/2)(k/k_p)^2)
  double spectrum_shape = 3.0;    ///< random_spectrum: the exponent s of that spectrum
  long seed = 42;                 ///< random_spectrum: seed of the random phases (the field does not
                                  ///< depend on the rank count)
};

struct FieldOutputSpec {
  Schedule every{};    ///< when to write fields/<name>_<step>.h5 (never by default)
  bool at_end = true;  ///< also write the final state
  /// The fields the files hold, of those the solver writes (lbm: velocity, density, pressure, vorticity,
  /// and in 3D q_criterion; spectral: velocity, vorticity, and in 3D q_criterion); empty = the solver's
  /// default fields (lbm: velocity, density, pressure; spectral: velocity, vorticity). The fields beyond
  /// them are computed (spectral q_criterion: 9 transforms; lbm vorticity and q_criterion: differences of
  /// the velocity with its halo) and written only where listed.
  std::vector<std::string> variables{};
  std::string precision = "fp64";  ///< fp64 | fp32: the datasets' type (fp32 files from an fp64 run)
};

struct DiagnosticsSpec {
  Schedule every{100, 0.0};  ///< when to add a row to diagnostics.csv and print a progress line
};

struct CheckpointSpec {
  Schedule every{};  ///< when to write checkpoints/ckpt_<step>.h5 (never by default)
  long keep = 3;     ///< how many checkpoints to keep (>= 1)
};

/// Time series of fields at points (`<out>/probes.h5`): each value interpolated (trilinear, bilinear in
/// 2D) from the cell centres around its point, cell (i, j, k) centred at ((i, j, k) + 1/2) dx.
struct ProbesSpec {
  Schedule every{};                             ///< when to add a row to probes.h5 (never by default)
  std::vector<std::vector<double>> points{};    ///< the points [m], one coordinate per dimension each,
                                                ///< inside the domain [0, L] along every axis
  std::vector<std::string> fields{"velocity"};  ///< velocity | pressure | density (LBM) | vorticity
                                                ///< | q_criterion (3D)
};

/// Shell-averaged energy spectra over time (`<out>/spectra.h5`, solver spectral).
struct SpectraSpec {
  Schedule every{};  ///< when to add E(k) to spectra.h5 (never by default)
};

/// Running statistics (`<out>/stats/<name>_<step>.h5`): time means per cell accumulated on the device in
/// FP64 from `start`, one sample every `every`, kept in the checkpoints (restart-exact), and profiles
/// averaged over the directions `average_over` (src/README.md, Output files).
struct StatisticsSpec {
  Schedule every{};  ///< when to take a sample (never by default)
  Schedule
      start{};  ///< the first step (a count) or time (`t`) at which samples are taken (0: from the start)
  std::vector<std::string> fields{"velocity"};  ///< velocity | pressure | density (LBM) | reynolds_stress
                                                ///< (<u_i u_j>) | vorticity (spectral)
  std::vector<std::string> average_over{};      ///< x | y | z: also profiles, averaged over these directions
  bool allow_nonperiodic = false;               ///< average_over may name a direction that is not periodic
  bool per_cell = true;    ///< time means per cell; false (LBM): the profiles alone, summed exactly inside
                           ///< the step, no per-cell sums (field/profile.hpp)
  Schedule write_every{};  ///< when to write a stats file, besides at the end of the run
};

/// One plane of `output.slices` (3D runs): the layer of cells containing `position` along `axis`, cell
/// layer i = min(floor(position / dx), n - 1), written as `slices/<name>_<axis><i>_<step>.h5` on its own
/// schedule, for movies.
struct SliceSpec {
  std::string axis = "z";                       ///< x | y | z: the axis normal to the plane
  double position = 0.0;                        ///< [m] along `axis`, inside [0, L] (required)
  Schedule every{};                             ///< when to write the plane (required)
  std::vector<std::string> fields{"velocity"};  ///< velocity | pressure | density (LBM) | vorticity
                                                ///< | q_criterion (3D)
};

struct OutputSpec {
  std::string dir = "";  ///< output directory; "" = out/<name> (the CLI's --out wins)
  /// How the ranks write field files and checkpoints: auto (collective with a parallel HDF5, else
  /// per_rank on several ranks, else one plain file), collective, gather or per_rank.
  std::string writer = "auto";
  FieldOutputSpec fields{};
  DiagnosticsSpec diagnostics{};
  CheckpointSpec checkpoint{};
  ProbesSpec probes{};
  SpectraSpec spectra{};
  StatisticsSpec statistics{};
  std::vector<SliceSpec> slices{};  ///< planes of fields, each on its own schedule (3D runs)
};

struct SteadySpec {
  double tolerance = 0.0;   ///< stop when the relative change of the velocity field between checks
                            ///< (L2 norm, per unit time) falls below this; 0 = never
  long check_every = 1000;  ///< steps between residual checks
};

struct RunControlSpec {
  double end_time = 0.0;  ///< stop at this physical time [s] (0 = use `steps`)
  long steps = 0;         ///< stop after this many steps (0 = use `end_time`)
  SteadySpec steady{};
  double max_wall_time = 0.0;  ///< wall-clock limit [s]; 0 = none. The run checkpoints and
                               ///< exits with code 75 when it is reached
  long check_every = 100;      ///< steps between health checks (NaN/Inf, Mach limit): exit 3
  long stop_check_every = 10;  ///< steps between the ranks' agreement on stopping (signals,
                               ///< wall time)
};

struct ParallelSpec {
  std::string comm = "auto";  ///< mpi | mpi-gpu | nccl | peer | auto (parallel/transport.hpp)
  std::vector<long> ranks{};  ///< ranks per direction; empty = automatic (LBM: MPI_Dims_create; spectral:
                              ///< slab, or pencils [1, P1, P2] past min(nz, ny) ranks)
  bool overlap = true;        ///< spectral: transposes field by field, overlapped with the next field's FFTs
  bool autotune = false;      ///< spectral 3D, several ranks: time every process grid [1, P1, P2] at start-up
                              ///< and keep the fastest (parallel.ranks left out; app/spectral_run.cpp)
};

struct ValidationSpec {
  std::string reference = "none";  ///< none, or a validation of a case (cases/<case>/validation.cpp):
                                   ///< ghia1982 | albensoeder2005 | taylor_green | tgv_re1600 |
                                   ///< kolmogorov
  std::string file = "";           ///< reference data file; "" = the case's shipped file
  double tolerance = 0.0;          ///< bound on the validation's main figures (its unit: see the case's
                                   ///< README); 0 = report the figures without a verdict
};

/// `eddy optimize` (2D spectral): the initial perturbation of largest final-state change (app/optimize.cpp).
struct OptimizeSpec {
  long spinup_steps = 0;        ///< steps from the initial condition to the base state omega_0
  long horizon_steps = 80;      ///< T: steps from omega_0 + perturbation to the final state (>= 1)
  double norm_ratio = 0.2;      ///< constraint ||d omega|| <= norm_ratio ||omega_0|| (RMS norms)
  std::string method = "adam";  ///< adam | gradient (projected gradient ascent, normalised steps)
  double learning_rate = 0.01;  ///< RMS size of one update relative to the constraint radius
  long iterations = 300;        ///< gradient evaluations (the loss is also evaluated once after the last)
  double beta1 = 0.9;           ///< Adam first-moment decay
  double beta2 = 0.999;         ///< Adam second-moment decay
  double epsilon = 1e-8;        ///< Adam denominator floor, relative to the RMS of the first gradient
  long checkpoints = 0;  ///< states the binomial schedule stores (initial included); 0 = ceil(log2 T) + 1
  bool compare_storage = true;  ///< also time one gradient storing every step and stage (memory baseline)
  long seed = 7;                ///< seed of the random initial perturbation (same spectrum as `initial`)
};

/// One solid body of `geometry.bodies`, physical units. The keys a type does not use must stay unset.
struct BodySpec {
  std::string type = "cylinder";    ///< cylinder (2D: a disc) | sphere | box | stl | mask
  std::vector<double> center{};     ///< cylinder, sphere: centre [m], one entry per dimension
  double radius = 0.0;              ///< cylinder, sphere: radius [m]
  std::vector<double> axis{};       ///< cylinder in 3D: axis direction (empty = [0, 0, 1])
  double length = 0.0;              ///< cylinder in 3D: length along the axis [m]; 0 = infinite
  std::vector<double> lo{};         ///< box: lower corner [m], one entry per dimension
  std::vector<double> hi{};         ///< box: upper corner [m]
  std::string file{};               ///< stl: a watertight STL surface; mask: an HDF5 file (relative paths:
                                    ///< from the config file's directory)
  double scale = 1.0;               ///< stl: x = scale * x_file + translate [m]
  std::vector<double> translate{};  ///< stl: shift after scaling [m], one entry per dimension
  std::string dataset = "solid";    ///< mask: the uint8 dataset (the grid's shape, nonzero = solid)
};

/// Solid bodies in the LBM domain and the reference scales of their force coefficients.
struct GeometrySpec {
  std::vector<BodySpec> bodies{};   ///< the bodies; a cell whose centre lies in one is solid
  std::string wall = "bouzidi";     ///< bouzidi (linear interpolated bounce-back, Bouzidi et al. 2001,
                                    ///< where the body gives the exact wall position) | halfway
  double reference_velocity = 0.0;  ///< U of C = 2 F / (rho U^2 A) [m/s]; 0 = no coefficients
  double reference_length = 0.0;    ///< D [m]: A = D in 2D (force per unit depth); the Strouhal f D / U
  double reference_area = 0.0;      ///< A [m^2] in 3D (needed there with reference_velocity)
};

/// The whole run.
/// Where each key's value came from, for messages: a `--set` argument or `file:line:column`.
struct KeyOrigins {
  std::string file;                          ///< the config file's name
  std::map<std::string, std::string> set;    ///< key path -> "--set key=value" (wins over the file)
  std::map<std::string, std::string> marks;  ///< key path -> "file:line:column"
  /// Whether the key itself (not only a section above it) has a known origin.
  bool has(const std::string& path) const;
  /// The origin of `path` or of its closest enclosing section; the file when none is known.
  std::string at(const std::string& path) const;
};

struct RunSpec {
  std::string name = "run";    ///< run name: output goes to out/<name> by default
  std::string solver = "lbm";  ///< lbm | spectral
  DomainSpec domain{};
  PhysicsSpec physics{};
  NumericsSpec numerics{};
  BoundarySpec boundaries{};
  GeometrySpec geometry{};
  InitialSpec initial{};
  OutputSpec output{};
  RunControlSpec run{};
  ParallelSpec parallel{};
  ValidationSpec validation{};
  OptimizeSpec optimize{};

  std::string source_file;    ///< the YAML file this came from (not a config key)
  std::string resolved_yaml;  ///< every key with its final value, as YAML (not a config key)
  KeyOrigins origins;         ///< where each value came from (not a config key)

  int dimensions() const { return static_cast<int>(domain.cells.size()); }
};

}  // namespace eddy::config
