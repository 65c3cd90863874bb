#pragma once
/// The lattice Boltzmann solver: one block of cells, in lattice units, on the configured backend.
///
/// The solver knows nothing of files, MPI or physical units: the app gives it a Setup in lattice
/// units (its box of the global grid, every rank's box, and an Exchanger) and reads moments back
/// through the accessors. The solver builds the ghost-cell pattern (which populations cross which
/// face, edge and corner, to which rank) from the boxes; the Exchanger moves them.
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/macros.hpp"
#include "core/names.hpp"
#include "core/types.hpp"
#include "field/exchange.hpp"
#include "field/moments.hpp"
#include "field/profile.hpp"
#include "field/taylor_green.hpp"
#include "geometry/shape.hpp"
#include "lbm/collisions.hpp"
#include "lbm/lattice.hpp"

namespace eddy::lbm {

/// What lies beyond a face of the domain. The open kinds (velocity_inlet, pressure_outlet, outflow) are
/// walls to the stream-collide kernel and get their populations from boundary links (boundary_k.hpp).
enum class FaceKind { wall, moving_wall, periodic, velocity_inlet, pressure_outlet, outflow };

/// The words of `FaceKind` (boundaries.*.type), by enumerator.
inline constexpr Names<FaceKind, 6> face_kind_names{
    {"wall", "moving_wall", "periodic", "velocity_inlet", "pressure_outlet", "outflow"}};

/// What a cell's state is stored as (numerics.storage): its populations, or the moments the regularized
/// operator rebuilds them from (density, velocity, non-equilibrium stress: 10 numbers a cell in 3D, 6 in
/// 2D; lbm/moment_solver.hpp).
enum class Storage { populations, moments };

/// The words of `Storage` (numerics.storage), by enumerator.
inline constexpr Names<Storage, 2> storage_names{{"populations", "moments"}};

/// Everything the solver needs, in lattice units.
struct Setup {
  int dims = 2;                            ///< 2 or 3
  Int3 cells{1, 1, 1};                     ///< interior cells of this block
  Int3 global{0, 0, 0};                    ///< cells of the whole grid (0 = this block is the whole grid)
  Int3 offset{0, 0, 0};                    ///< first global cell of this block
  std::vector<std::array<Int3, 2>> boxes;  ///< every rank's {offset, extent}, by rank (empty: one rank)
  int rank = 0;                            ///< this rank's index in `boxes`
  field::Exchanger* exchanger = nullptr;   ///< moves ghost populations between ranks (null: one rank)
  Lattice lattice = Lattice::d2q9;         ///< the velocity set (lattice.hpp)
  Collision collision = Collision::bgk;    ///< the collision operator (collisions.hpp)
  Storage storage = Storage::populations;  ///< populations, or moments (regularized only)
  Precision precision = Precision::fp64;   ///< population storage (arithmetic: FP64 for fp64, else FP32;
                                           ///< fp16: scaled IEEE half, lbm/storage_k.hpp)
  double tau = 0.6;                        ///< relaxation time (viscosity nu = (tau - 1/2) / 3)
  double trt_magic = 3.0 / 16.0;           ///< TRT magic parameter
  double smagorinsky = 0.0;                ///< Smagorinsky constant C_s (0 = no LES model)
  Real3 force{0.0, 0.0, 0.0};              ///< body force per unit volume, lattice units (Guo forcing)
  std::array<FaceKind, 6> faces{};         ///< x_min, x_max, y_min, y_max, z_min, z_max
  std::array<Real3, 6> wall_velocity{};    ///< lattice velocity of moving walls and velocity inlets (the
                                           ///< peak of a parabolic profile), per face
  std::array<bool, 6> parabolic{};         ///< velocity inlet: 4 s (1 - s) across each tangential direction
  double ramp_steps = 0.0;                 ///< velocity inlets rise as (1 - cos(pi t / T)) / 2 over T steps
  std::array<double, 6> outlet_drho{};     ///< pressure outlet: rho_w - 1, per face
  /// Solid bodies, in physical coordinates with cell (i, j, k) centred at ((i, j, k) + 1/2) dx (z = 0 in
  /// 2D). A cell whose centre is inside one is solid; each body's force is reported separately.
  std::vector<std::shared_ptr<const geometry::Shape>> bodies;
  double dx = 1.0;                 ///< cell size in the bodies' units
  bool interpolated_walls = true;  ///< Bouzidi bounce-back where a body gives the crossing, else half-way
};

/// Initial state of one cell: density deviation rho - 1 and velocity, lattice units.
struct CellState {
  double drho = 0.0;
  Real3 u{0.0, 0.0, 0.0};
};
/// Initial condition as a function of the global cell index (x, y, z).
using InitialCondition = std::function<CellState(index_t, index_t, index_t)>;

/// The Taylor-Green vortex (cases/taylor_green) as the state of global cell (x, y, z) in lattice units:
/// velocity v dt / dx at the cell centre ((x, y, z) + 1/2) dx, density deviation 3 p / (rho0 (dx/dt)^2)
/// from the pressure. Callable on host and device: as an InitialCondition, and sampled on the device by
/// Solver::initialize(const TaylorGreenCells&), which needs no host array (a 608^3 start spent most of
/// its minute on the host).
struct TaylorGreenCells {
  field::TaylorGreen tg;
  double dx = 1.0, dt = 1.0, density = 1.0;  ///< lbm::Units' spacing, time step, reference density

  EDDY_HD CellState operator()(index_t x, index_t y, index_t z) const {
    const Real3 p{(double(x) + 0.5) * dx, (double(y) + 0.5) * dx, (double(z) + 0.5) * dx};
    const Real3 v = tg.velocity(p);
    CellState s;
    for (std::size_t d = 0; d < 3; ++d) s.u[d] = v[d] * dt / dx;
    const double scale = density * (dx / dt) * (dx / dt);  // p = c_s^2 drho in lattice units
    s.drho = 3.0 * tg.pressure(p) / scale;
    return s;
  }
};

/// Sums and maxima over the block's interior cells, lattice units (the app reduces them over ranks).
struct Stats {
  double mass = 0.0;             ///< sum of rho - 1
  double kinetic_energy = 0.0;   ///< sum of |u|^2 / 2
  double max_speed = 0.0;        ///< max |u|
  double nonfinite = 0.0;        ///< cells whose density or velocity is NaN or Inf
  double strain_sq = 0.0;        ///< sum of S:S, S the strain rate from the non-equilibrium stress
                                 ///< (S = -3 omega / (2 rho) Pi_neq: local, second-order, no differences)
  double sgs_dissipation = 0.0;  ///< sum of 2 nu_t S:S, the Smagorinsky model's dissipation (0 without LES)
};

class Solver {
 public:
  virtual ~Solver() = default;
  /// Set every cell to the equilibrium of the given state; resets the step count.
  virtual void initialize(const InitialCondition& ic) = 0;
  /// The same for the Taylor-Green vortex, sampled on the device (the same populations as through an
  /// InitialCondition on the CPU backend; on a GPU within the device's sin/cos, a few units in the last
  /// place of the velocities).
  virtual void initialize(const TaylorGreenCells& tg) = 0;
  /// Advance one time step (stream, collide, boundaries). On a GPU with one rank, a step of several
  /// launches (walls, boundary links) is recorded as a graph once per kind (even, odd) and replayed
  /// (backend/graph.hpp), except while a boundary velocity ramps up.
  virtual void step() = 0;
  /// Step graphs on (the default) or off (eddy bench times both).
  virtual void set_graphs(bool on) = 0;
  /// How many times a step was recorded as a graph (0 on the CPU backend or where the step cannot be).
  virtual int graph_recordings() const = 0;
  /// Steps taken since initialize().
  virtual long steps() const = 0;
  /// Density and velocity of the interior cells (x fastest); velocity has `dims` components per cell.
  virtual void macroscopic(std::vector<double>& rho, std::vector<double>& u) const = 0;
  /// The same for the interior cells `cells` alone (indices as macroscopic()'s: x fastest over the
  /// block), bitwise macroscopic()'s values there: computed on the device for those cells only, and
  /// only they come to the host (probes).
  virtual void macroscopic_at(const std::vector<index_t>& cells, std::vector<double>& rho,
                              std::vector<double>& u) const = 0;
  /// The vorticity of the interior cells (x fastest; 3 components per cell in 3D, the z component alone in
  /// 2D) and the Q-criterion (one value per cell), lattice units (per step, per step squared), from
  /// macroscopic()'s velocity by central differences, one-sided next to solids (lbm/derived_k.hpp), on
  /// the device. Collective when ranks exchange: the velocity halo (every rank calls, with or without
  /// cells). The first call allocates the padded velocity (8 B per padded cell and dimension).
  virtual void vorticity(std::vector<double>& w) = 0;
  virtual void q_criterion(std::vector<double>& q) = 0;
  /// The same for the interior cells `cells` alone (indices as macroscopic_at()'s), bitwise the whole
  /// field's values there: the halo of the whole block, then the field of those cells only (probes).
  virtual void vorticity_at(const std::vector<index_t>& cells, std::vector<double>& w) = 0;
  virtual void q_criterion_at(const std::vector<index_t>& cells, std::vector<double>& q) = 0;
  /// Add the interior cells' state to running sums (field/moments.hpp: density, velocity, stress; lattice
  /// units), on the device: drho = macroscopic()'s rho - 1 and its velocity, bitwise.
  virtual void add_moments(const field::MomentView& sums) const = 0;
  /// Add the interior cells' state, as add_moments() takes it, to exact profile sums (field/profile.hpp):
  /// `with_next_step` false adds it now, by a kernel of its own, and cancels a pending one; true leaves it
  /// to the next step(), whose update adds each cell's sample from the populations it loads (the same
  /// populations: the same sums, bit for bit, for no extra memory traffic; that step runs without a
  /// step graph). `sums` must outlive that step.
  virtual void add_profile(const field::ProfileView& sums, bool with_next_step) = 0;
  /// Reductions over the interior, computed on the device.
  virtual Stats stats() const = 0;
  /// {sum |u - u_prev|^2, sum |u|^2} over this block since the previous call (u_prev = 0 at first).
  virtual std::array<double, 2> velocity_change() = 0;
  /// The exact state for a checkpoint: this block's interior population slots, cell by cell (x fastest,
  /// `q` values per cell, storage type of `state_bytes()` bytes each), as stored, so a restart continues
  /// bitwise. The step count's parity says how to read them (AA pattern).
  virtual std::vector<unsigned char> save_state() const = 0;
  /// Restore a state saved by save_state() (of this block, possibly by another decomposition) at `step`;
  /// fills the ghost populations the next step needs. Collective when ranks exchange.
  virtual void load_state(const std::vector<unsigned char>& state, long step) = 0;
  /// Bytes of one stored population value (8 fp64, 4 fp32, 2 fp16: lbm/storage_k.hpp).
  virtual int state_bytes() const = 0;
  /// Values per cell of the checkpoint state: the populations (lattice q), or the moments of moment
  /// storage (10 in 3D, 6 in 2D).
  virtual int q() const = 0;
  /// Global index (x fastest) of the first interior cell whose density or velocity is NaN/Inf, or -1.
  virtual index_t first_nonfinite() const = 0;
  /// {max |u| (lattice units), global index of the first cell where it occurs} over this block.
  virtual std::pair<double, index_t> fastest_cell() const = 0;
  /// Device memory held, bytes.
  virtual std::size_t bytes_allocated() const = 0;
  /// Bytes read and written per cell and step by the update (the figure of merit for bandwidth).
  virtual double bytes_per_cell_step() const = 0;
  virtual const Setup& setup() const = 0;
  /// Force of the fluid on each body (Setup::bodies order) from this block's links at the last step,
  /// lattice units (momentum per step): exact multiples of 2^-40, so sums over ranks are exact.
  virtual std::vector<Real3> body_forces() const = 0;
  /// Boundary links of this block (bodies and open faces).
  virtual index_t boundary_links() const = 0;
};

/// Lattice velocity of the velocity inlet on `face` at full ramp, at global cell x (its profile across
/// the face: uniform, or 4 s (1 - s) per tangential direction with s = (x + 1/2) / cells).
Real3 inlet_velocity(const Setup& s, int face, const index_t (&x)[3]);

/// Build the solver for the lattice, collision and precision named in the setup.
std::unique_ptr<Solver> make_solver(const Setup& s);

/// What the solver of a setup holds and moves, found without building it (`eddy plan`): the arrays of
/// lbm/solver_impl.hpp sized from the same padded grid and ghost pattern. Not counted: the boundary
/// links of bodies (O(body surface)); `peers_exchange` says whether the ranks' exchanger is in use (a
/// setup of several boxes), which adds the halo buffers and the shell's cell list. `derived_fields`: the
/// run writes vorticity or q_criterion, which adds the padded velocity and its halo's index lists
/// (lbm/derived_k.hpp) and their values to a field output.
struct Footprint {
  index_t cells = 0;               ///< interior cells of the block
  index_t shell_cells = 0;         ///< cells updated before the exchange starts (0 without peers)
  double device_bytes = 0;         ///< held through the run (populations, flags, lists, halo buffers)
  double transient_bytes = 0;      ///< the largest temporary device array on top (field output, checkpoint)
  double host_bytes = 0;           ///< the largest host array of a rank (checkpoint state, field output)
  double bytes_per_cell_step = 0;  ///< update traffic per interior cell and step
  int state_values = 0;            ///< values per cell of the checkpoint state (Solver::q())
  std::vector<std::pair<int, double>> sent_bytes;  ///< per peer rank: bytes sent per step (mean of the
                                                   ///< forward and reverse exchanges)
};
Footprint footprint(const Setup& s, bool steady_check, bool derived_fields = false);

namespace detail {
/// The solver of lattice L storing populations as T (double, float, backend::Half); defined in
/// lbm/solver_impl.hpp and instantiated once per lattice and precision in a translation unit of its own.
template <class L, class T>
std::unique_ptr<Solver> make_impl(const Setup& s);
/// The solver of lattice L in moment storage of type T (double, float); defined in lbm/moment_solver.hpp,
/// instantiated as make_impl is.
template <class L, class T>
std::unique_ptr<Solver> make_moment_impl(const Setup& s);
}  // namespace detail

}  // namespace eddy::lbm
