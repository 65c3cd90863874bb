#pragma once
/// The boundary links of a block's interior fluid cells, set up on the host (boundary_k.hpp has what a
/// link is and how the kernels fill it): for every lattice link of a near-solid cell that ends in a
/// body or leaves the domain through an open face, one BoundaryLink of its kind with its data (the open
/// kinds' data from their files, through boundary_kinds.hpp's make_open_link).
#include <cstdint>
#include <vector>

#include "lbm/boundary_kinds.hpp"
#include "lbm/ghost_layout.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {

/// The links of setup `s`'s block (flags `h`, the body of each padded cell `body`, -1 none), body links
/// first, grouped by body: body b's are [body_links[b], body_links[b + 1]); then the open faces' links.
/// `a` gives the grid and its wrapped axes `wrap_axes` for neighbour(), as the kernels find neighbours.
template <class L, class T, class R>
std::vector<BoundaryLink> make_boundary_links(const Setup& s, const GhostLayout<L>& layout,
                                              const StreamCollideArgs<T, R>& a, unsigned wrap_axes,
                                              const std::vector<std::uint8_t>& h,
                                              const std::vector<int>& body,
                                              std::vector<index_t>& body_links) {
  const field::PaddedGrid g = a.grid;
  std::vector<std::vector<BoundaryLink>> by_body(s.bodies.size());
  std::vector<BoundaryLink> open;
  auto is_fluid = [&](index_t m) { return (h[static_cast<std::size_t>(m)] & kind_mask) == fluid; };
  for (index_t t = 0; t < g.n_interior(); ++t) {
    const index_t n = g.interior_to_padded(t);
    if (!(h[static_cast<std::size_t>(n)] & near_solid)) continue;
    const index_t x[3] = {t % g.nx + s.offset[0], (t / g.nx) % g.ny + s.offset[1],
                          t / (g.nx * g.ny) + s.offset[2]};
    // Neighbours as the kernels find them: wrapped around the block's periodic axes.
    const unsigned faces = wrapped_faces(g, wrap_axes, n);
    for (int k = 1; k < L::q; ++k) {
      const index_t m = neighbour<L>(n, faces, k, +1, a);
      const index_t back = neighbour<L>(n, faces, k, -1, a);
      if (is_fluid(m)) continue;
      BoundaryLink l;
      l.cell = n, l.k = k, l.faces = faces;
      const int b = body[static_cast<std::size_t>(m)];
      if (b >= 0) {
        l.kind = body_link, l.body = b;
        const Real3 from = layout.centre(x);
        Real3 to = from;
        for (int d = 0; d < s.dims; ++d) to[static_cast<std::size_t>(d)] += L::c(k, d) * s.dx;
        const double q =
            s.interpolated_walls ? s.bodies[static_cast<std::size_t>(b)]->crossing(from, to) : -1.0;
        l.q = q < 0.0 ? 0.5 : q;
        if (is_fluid(back)) l.aux = back, l.aux_faces = wrapped_faces(g, wrap_axes, back);
        by_body[static_cast<std::size_t>(b)].push_back(l);
        continue;
      }
      // A ghost beyond the domain: a link only when every face it lies beyond is open (a wall wins).
      int face = -1;
      bool walled = false;
      for (int d = 0; d < s.dims; ++d) {
        const index_t gd = x[d] + L::c(k, d);
        if (gd >= 0 && gd < s.global[static_cast<std::size_t>(d)]) continue;
        const int f = 2 * d + (gd < 0 ? 0 : 1);
        const FaceKind kind = s.faces[static_cast<std::size_t>(f)];
        if (kind == FaceKind::wall || kind == FaceKind::moving_wall) walled = true;
        if (kind != FaceKind::periodic && face < 0) face = f;
      }
      if (walled || face < 0) continue;
      make_open_link<L>(s.faces[static_cast<std::size_t>(face)], l,
                        OpenLinkSite<T, R>{s, face, x, a, h, wrap_axes});
      open.push_back(l);
    }
  }
  std::vector<BoundaryLink> all;
  body_links.assign(1, 0);
  for (const auto& v : by_body) {
    all.insert(all.end(), v.begin(), v.end());
    body_links.push_back(static_cast<index_t>(all.size()));
  }
  all.insert(all.end(), open.begin(), open.end());
  return all;
}

}  // namespace eddy::lbm
