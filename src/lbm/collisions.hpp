#pragma once
/// The collision operators, registered in one place: the `Collision` enumerator a config's
/// numerics.collision names, its word, and the operator it builds. An operator is one file,
/// collision_<name>_k.hpp: a struct `template <class R, bool Les, bool Force>` with its `name`, a
/// `static make(const CollisionRates&, const CollisionExtras<R>&)` and the pointwise
/// `operator()<L>(f, drho, u, unit)`. Adding one: lbm/README.md, "Adding a collision operator".
#include "core/names.hpp"
#include "lbm/collision_bgk_k.hpp"
#include "lbm/collision_kbc_k.hpp"
#include "lbm/collision_regularized_k.hpp"
#include "lbm/collision_trt_k.hpp"

namespace eddy::lbm {

/// numerics.collision.
enum class Collision { bgk, trt, regularized, kbc };

/// The words of `Collision`, by enumerator.
inline constexpr Names<Collision, 4> collision_names{
    {Bgk<double>::name, Trt<double>::name, Regularized<double>::name, Kbc<double>::name}};

/// f(op) with the operator `c` names, built from `rates` and `extras`, of arithmetic R and with the
/// LES and forcing flags Les, Force.
template <class R, bool Les, bool Force, class F>
void with_collision(Collision c, const CollisionRates& rates, const CollisionExtras<R>& extras, F&& f) {
  switch (c) {
    case Collision::bgk:
      return f(Bgk<R, Les, Force>::make(rates, extras));
    case Collision::trt:
      return f(Trt<R, Les, Force>::make(rates, extras));
    case Collision::regularized:
      return f(Regularized<R, Les, Force>::make(rates, extras));
    case Collision::kbc:
      return f(Kbc<R, Les, Force>::make(rates, extras));
  }
}

/// The operator of the cells next to a solid in the step that bounces their populations back (the
/// near-solid kernel of the odd step, solver_launches.hpp): the operator itself, but for the
/// regularized one, whose wall closure is TRT of the same viscosity (collision_regularized_k.hpp).
template <class C>
EDDY_HD EDDY_INLINE const C& near_wall_collision(const C& c) {
  return c;
}
template <class R, bool Les, bool Force>
EDDY_HD EDDY_INLINE const Trt<R, Les, Force>& near_wall_collision(const Regularized<R, Les, Force>& c) {
  return c.wall;
}

}  // namespace eddy::lbm
