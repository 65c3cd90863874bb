#pragma once
/// Exact geometric predicates on doubles, for decisions that must never contradict each other
/// (which facet a ray through a shared edge or vertex belongs to).

namespace eddy::geometry {

/// The exact sign of det[a - c, b - c]: +1 when a, b, c turn counter-clockwise, -1 clockwise, 0 when
/// they are collinear. Shewchuk (1997): a filtered double evaluation, exact arithmetic when needed.
int orient2d(double ax, double ay, double bx, double by, double cx, double cy);

}  // namespace eddy::geometry
