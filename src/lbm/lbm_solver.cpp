// The LBM solver's factory: the instance of the configured lattice and storage precision (each built in
// a translation unit of its own, see lbm/solver_impl.hpp), and the inlet profile.
#include "lbm/lbm_solver.hpp"

#include "backend/half.hpp"
#include "core/error.hpp"
#include "lbm/lattice.hpp"

namespace eddy::lbm {
namespace {

template <class L>
std::unique_ptr<Solver> make_for_lattice(const Setup& s) {
  switch (s.precision) {
    case Precision::fp64:
      return detail::make_impl<L, double>(s);
    case Precision::fp32:
      return detail::make_impl<L, float>(s);
    case Precision::fp16:
      return detail::make_impl<L, backend::Half>(s);
  }
  throw InputError("numerics.precision: unknown storage precision (valid: fp64, fp32, fp32/fp16)");
}

}  // namespace

Real3 inlet_velocity(const Setup& s, int face, const index_t (&x)[3]) {
  const std::size_t f = static_cast<std::size_t>(face);
  double profile = 1.0;
  if (s.parabolic[f])
    for (int d = 0; d < s.dims; ++d) {
      if (d == face / 2) continue;
      const double t = (double(x[d]) + 0.5) / double(s.global[static_cast<std::size_t>(d)]);
      profile *= 4.0 * t * (1.0 - t);
    }
  return {s.wall_velocity[f][0] * profile, s.wall_velocity[f][1] * profile, s.wall_velocity[f][2] * profile};
}

std::unique_ptr<Solver> make_solver(const Setup& s) {
  if (s.collision != "bgk" && s.collision != "trt" && s.collision != "regularized")
    throw InputError("numerics.collision: '" + s.collision + "' is not known (valid: bgk, trt, regularized)");
  if (s.lattice == "D2Q9" && s.dims == 2) return make_for_lattice<D2Q9>(s);
  if (s.lattice == "D3Q19" && s.dims == 3) return make_for_lattice<D3Q19>(s);
  if (s.lattice == "D3Q27" && s.dims == 3) return make_for_lattice<D3Q27>(s);
  throw InputError("numerics.lattice: '" + s.lattice + "' does not fit a " + std::to_string(s.dims) +
                   "D domain (valid: D2Q9 in 2D; D3Q19, D3Q27 in 3D)");
}

}  // namespace eddy::lbm
