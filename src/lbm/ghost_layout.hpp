#pragma once
/// Which padded cells of a rank's block are interior, solid or ghost images of other ranks' cells, and
/// the ghost-population pattern that follows for the AA pattern (see stream_collide_k.hpp).
///
/// A ghost cell outside the global domain across a wall face is solid (the face's flag code); every
/// other ghost cell is the image of an interior cell (periodic wrap applied) owned by some rank. Its
/// populations that cross into the block are the slots j whose upstream cell (ghost - c_j) is interior:
/// after an even step they are pulled from the image (forward exchange), after an odd step pushed back
/// (reverse exchange). Both ends enumerate the receiving block's ghosts in the same order (z, y, x, j),
/// so the lists match without any negotiation. The velocity halo of the derived fields (cell_pattern)
/// is the part of those lists along the face directions, cell by cell.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "field/exchange.hpp"
#include "field/grid.hpp"
#include "lbm/lbm_solver.hpp"
#include "lbm/stream_collide_k.hpp"

namespace eddy::lbm {

/// Mark every interior fluid cell of the flag field `h` (padded cells of grid g) that has a solid cell
/// along a lattice link (across a wrapped axis: the image cell) near_solid: the kernels read neighbour
/// flags only there. Marked in a second pass, so the first reads only kinds.
template <class L>
void mark_near_solid(const field::PaddedGrid& g, unsigned wrap_axes, std::vector<std::uint8_t>& h) {
  // A block of fluid alone (a periodic box, its ghosts the images) has no cell next to a solid.
  if (std::all_of(h.begin(), h.end(), [](std::uint8_t f) { return (f & kind_mask) == fluid; })) return;
  std::vector<std::uint8_t> mark(static_cast<std::size_t>(g.n_interior()), 0);
  backend::host_parallel_for(g.n_interior(), [&](index_t t) {
    const index_t n = g.interior_to_padded(t);
    if (h[static_cast<std::size_t>(n)] != fluid) return;
    const Links l(n, wrapped_faces(g, wrap_axes, n), g);
    std::uint8_t& k = mark[static_cast<std::size_t>(t)];
    for (int i = 1; i < L::q; ++i)
      if (h[static_cast<std::size_t>(l.neighbour<L>(i, +1, g))] != fluid) k |= near_solid;
  });
  for (index_t t = 0; t < g.n_interior(); ++t)
    h[static_cast<std::size_t>(g.interior_to_padded(t))] |= mark[static_cast<std::size_t>(t)];
}

/// Rows of the population and flag arrays are padded to a multiple of 32 cells, and the population
/// array starts `lead` elements into its allocation, so that every row's first interior cell is on a
/// 128-byte line (FP32; two lines FP64): a warp's loads and stores of one slot for 32 cells are then one
/// line each on the even step, and on the odd step for the links without an x component.
constexpr index_t row_align = 32;
/// Interior cells packed at a time for a checkpoint: the device holds this many cells' populations
/// beside the state, not a second copy of the block (2^21 cells: 152 MiB for D3Q19 FP32).
constexpr index_t state_chunk_cells = index_t(1) << 21;

/// The padded grid of a block of `cells` (ghost width 1): the one layout of every LBM array. The kernels
/// index a block's cells in 32 bits (stream_collide_k.hpp: Links), so a block holds fewer than 2^32 padded
/// cells: about 1600^3, more than one GPU's memory holds.
inline field::PaddedGrid padded_grid(int dims, const Int3& cells) {
  const field::PaddedGrid g = field::PaddedGrid::make(dims, cells, 1, row_align);
  if (g.n_padded >= (index_t(1) << 32))
    throw InputError("domain.cells: a block of " + std::to_string(g.n_padded) +
                     " padded cells is more than one rank can index (2^32 cells): use more ranks "
                     "(parallel.ranks) or fewer cells");
  return g;
}

/// The axes a block of extent `ext` wraps itself (bit d): periodic at both ends and spanned whole by
/// the block. Links across them go straight to the image cell (stream_collide_k.hpp: wrapped_faces_at), so
/// their ghost cells are neither used nor filled.
inline unsigned wrapped_axes(const Setup& s, const Int3& ext) {
  unsigned axes = 0;
  for (int d = 0; d < s.dims; ++d) {
    const std::size_t a = static_cast<std::size_t>(d);
    if (s.faces[2 * a] == FaceKind::periodic && s.faces[2 * a + 1] == FaceKind::periodic &&
        ext[a] == s.global[a])
      axes |= 1u << d;
  }
  return axes;
}

template <class L>
class GhostLayout {
 public:
  /// `s` must have global, offset, boxes and rank filled (as SolverImpl normalises them).
  explicit GhostLayout(const Setup& s) : s_(s), grid_(padded_grid(s.dims, s.cells)) { index_owners(); }

  enum class Kind { interior, solid, ghost };

  /// Flag of every padded cell of this rank's block.
  std::vector<std::uint8_t> flags() const {
    std::vector<std::uint8_t> h(static_cast<std::size_t>(grid_.n_padded), fluid);

    backend::host_parallel_for(grid_.n_padded, [&](index_t n) {
      index_t p[3];
      grid_.coordinates(n, p);
      index_t img[3];
      std::uint8_t flag;
      classify(s_.offset, s_.cells, p, flag, img);
      h[static_cast<std::size_t>(n)] = flag;
    });
    return h;
  }

  /// For each peer rank: this block's ghost entries it fills (recv) and the interior entries that fill
  /// its ghosts (send); entries index the population array (slot * n_padded + padded cell).
  field::Pattern pattern() const {
    return make_pattern([&](auto&& add) { for_each_entry(add); });
  }

  /// The velocity halo of the derived fields (lbm/derived_k.hpp): for each peer rank, this block's ghost
  /// cells next to an interior cell across a face (the neighbours of central differences; edges and
  /// corners are not needed) and the interior cells that fill them, each as `components` entries
  /// k * n_padded + padded cell of an array of `components` padded arrays. These are the ghost cells of
  /// pattern()'s links along a face direction (each such ghost has exactly one: its outward normal), in
  /// the same order on both ends; a ghost whose image or inner neighbour is a body cell is not in it
  /// (its flag, or the inner cell's, says solid). Ghosts beyond an axis the block wraps are not in it
  /// either: the kernels reach the image through the wrap.
  field::Pattern cell_pattern(int components) const {
    return make_pattern([&](auto&& add) { for_each_cell_entry(components, add); });
  }

  /// Every entry of cell_pattern(components): visit(peer, side (0 send, 1 recv), entry), in its order.
  template <class F>
  void for_each_cell_entry(int components, F&& visit) const {
    const index_t N = grid_.n_padded;
    for_each_entry([&](int peer, int side, index_t entry) {
      const int j = static_cast<int>(entry / N);
      int length = 0;
      for (int d = 0; d < 3; ++d) length += L::c(j, d) * L::c(j, d);
      if (length != 1) return;
      for (int k = 0; k < components; ++k) visit(peer, side, k * N + entry % N);
    });
  }

  /// The halo of moment storage (lbm/moment_solver.hpp): for each peer rank, this block's ghost cells
  /// that an interior cell pulls from along some link (pattern()'s ghost cells, each once) and the
  /// interior cells that fill them, each as `components` entries k * n_padded + padded cell. Both ends
  /// take a ghost cell at its first link in pattern()'s order, so the lists match.
  field::Pattern ghost_cell_pattern(int components) const {
    return make_pattern([&](auto&& add) { for_each_ghost_cell_entry(components, add); });
  }

  /// Every entry of ghost_cell_pattern(components): visit(peer, side (0 send, 1 recv), entry), in its
  /// order (for_each_entry's, each ghost cell at its first link).
  template <class F>
  void for_each_ghost_cell_entry(int components, F&& visit) const {
    const index_t N = grid_.n_padded;
    std::vector<int> peers;
    index_t last = -1;
    for_each_ghost_link(s_.rank, [&](index_t cell, int, const index_t(&img)[3]) {
      if (cell == last) return;
      last = cell;
      const int q = owner(img);
      if (std::find(peers.begin(), peers.end(), q) == peers.end()) peers.push_back(q);
      for (int k = 0; k < components; ++k) visit(q, 1, k * N + cell);
    });
    std::sort(peers.begin(), peers.end());
    for (int q : peers) {
      last = -1;
      for_each_ghost_link(
          q,
          [&](index_t cell, int, const index_t(&img)[3]) {
            if (cell == last) return;
            last = cell;
            if (owner(img) != s_.rank) return;
            const index_t n = grid_.at(img[0] - s_.offset[0], img[1] - s_.offset[1], img[2] - s_.offset[2]);
            for (int k = 0; k < components; ++k) visit(q, 0, k * N + n);
          },
          s_.rank);
    }
  }

  /// The lengths of pattern()'s lists, {send, recv} per peer rank, without building them (eddy plan).
  std::map<int, std::array<index_t, 2>> pattern_sizes() const {
    std::map<int, std::array<index_t, 2>> sizes;
    for_each_entry([&](int peer, int side, index_t) { ++sizes[peer][static_cast<std::size_t>(side)]; });
    return sizes;
  }

  /// Every entry of pattern(): visit(peer, side (0 send, 1 recv), entry), the recv entries of all peers
  /// first, then each peer's send entries, in the order both ends enumerate them.
  template <class F>
  void for_each_entry(F&& visit) const {
    const index_t N = grid_.n_padded;
    std::vector<int> peers;
    for_each_ghost_link(s_.rank, [&](index_t cell, int j, const index_t(&img)[3]) {
      const int q = owner(img);
      if (std::find(peers.begin(), peers.end(), q) == peers.end()) peers.push_back(q);
      visit(q, 1, j * N + cell);
    });
    std::sort(peers.begin(), peers.end());
    for (int q : peers)
      for_each_ghost_link(
          q,
          [&](index_t, int j, const index_t(&img)[3]) {
            if (owner(img) != s_.rank) return;
            visit(q, 0,
                  j * N + grid_.at(img[0] - s_.offset[0], img[1] - s_.offset[1], img[2] - s_.offset[2]));
          },
          s_.rank);
  }

  /// Every ghost link of rank r's block: visit(padded cell, slot j, global image cell). Ghost cells
  /// beyond an axis the block wraps are not used; a link's upstream cell is found through the wrap.
  /// `imaging` >= 0: only the ghost cells whose image lies in that rank's box (the others are skipped
  /// without being looked at: the same visits in the same order as a filter in `visit` would leave).
  template <class F>
  void for_each_ghost_link(int r, F&& visit, int imaging = -1) const {
    const auto& box = s_.boxes[static_cast<std::size_t>(r)];
    const field::PaddedGrid g = padded_grid(s_.dims, box[1]);
    const unsigned wrap = wrapped_axes(s_, box[1]);
    const index_t lo[3] = {g.g, g.g, g.gz};
    auto outside = [&](int d, index_t u) {
      return u < lo[d] || u >= lo[d] + box[1][static_cast<std::size_t>(d)];
    };
    // Per axis, the padded coordinates to visit, ascending: all, or those whose image (periodic wrap
    // applied) lies in the box of `imaging`.
    std::array<std::vector<index_t>, 3> axis;
    const index_t extent[3] = {g.nx + 2 * g.g, g.ny + 2 * g.g, g.nz + 2 * g.gz};
    for (int d = 0; d < 3; ++d) {
      const std::size_t a = static_cast<std::size_t>(d);
      for (index_t u = 0; u < extent[d]; ++u) {
        if (imaging >= 0 && d < s_.dims) {
          const auto& mine = s_.boxes[static_cast<std::size_t>(imaging)];
          index_t img = box[0][a] + u - lo[d];
          const index_t n = s_.global[a];
          if (img < 0 || img >= n) {
            if (s_.faces[2 * a + (img < 0 ? 0 : 1)] != FaceKind::periodic) continue;
            img = (img % n + n) % n;
          }
          if (img < mine[0][a] || img >= mine[0][a] + mine[1][a]) continue;
        }
        axis[a].push_back(u);
      }
    }
    for (const index_t z : axis[2])
      for (const index_t y : axis[1]) {
        // Rows inside the block in y and z have ghosts at their two ends only: skip the interior cells,
        // so that a block's links cost its surface, not its volume.
        const bool inner_row = !outside(1, y) && (s_.dims == 2 || !outside(2, z));
        for (const index_t x : axis[0]) {
          if (inner_row && !outside(0, x)) continue;
          const index_t p[3] = {x, y, z};
          index_t img[3];
          std::uint8_t flag;
          if (classify(box[0], box[1], p, flag, img) != Kind::ghost) continue;
          bool unused = false;
          for (int d = 0; d < s_.dims; ++d) unused = unused || (((wrap >> d) & 1u) && outside(d, p[d]));
          if (unused) continue;
          // A body cell takes no odd step and its fluid neighbours bounce back from it: no population
          // crosses between a ghost and an interior cell when either is solid (and a stale one sent back
          // after an odd step would overwrite what the fluid neighbour bounced into its own slot).
          if (!s_.bodies.empty() && body_at(img) >= 0) continue;
          for (int j = 1; j < L::q; ++j) {
            bool upstream_inside = true;
            index_t up[3] = {0, 0, 0};
            for (int d = 0; d < s_.dims; ++d) {
              index_t u = p[d] - L::c(j, d);
              const index_t period = box[1][static_cast<std::size_t>(d)];
              if ((wrap >> d) & 1u) u += u < lo[d] ? period : (u >= lo[d] + period ? -period : 0);
              upstream_inside = upstream_inside && !outside(d, u);
              up[d] = box[0][static_cast<std::size_t>(d)] + u - lo[d];
            }
            if (!upstream_inside) continue;
            if (!s_.bodies.empty() && body_at(up) >= 0) continue;
            visit(g.padded(x, y, z), j, img);
          }
        }
      }
  }

  /// Kind of padded cell p of the block with extent `ext` at global offset `off`; `flag` gets its flag,
  /// `img` its global cell (periodic wrap applied).
  Kind classify(const Int3& off, const Int3& ext, const index_t (&p)[3], std::uint8_t& flag,
                index_t (&img)[3]) const {
    const index_t lo[3] = {grid_.g, grid_.g, grid_.gz};
    bool inside = true;
    flag = fluid;
    for (int d = 0; d < 3; ++d) {
      const std::size_t a = static_cast<std::size_t>(d);
      img[d] = d < s_.dims ? off[a] + p[d] - lo[d] : 0;
      if (d >= s_.dims) continue;
      if (p[d] < lo[d] || p[d] >= lo[d] + ext[a]) inside = false;
      const index_t n = s_.global[a];
      if (img[d] >= 0 && img[d] < n) continue;
      const int face = 2 * d + (img[d] < 0 ? 0 : 1);
      const FaceKind k = s_.faces[static_cast<std::size_t>(face)];
      if (k == FaceKind::periodic) {
        img[d] = (img[d] % n + n) % n;
      } else {
        // A resting wall wins at edges shared with a moving one. Open faces are resting walls here:
        // their boundary links (boundary_k.hpp) replace what bounces back from them.
        const std::uint8_t code =
            k == FaceKind::moving_wall ? std::uint8_t(moving_wall + face) : std::uint8_t(wall);
        if (flag == fluid || code == wall) flag = code;
      }
    }
    if (inside) return Kind::interior;
    return flag == fluid ? Kind::ghost : Kind::solid;
  }

  /// Rank owning global cell c: O(log ranks) through the process grid when the boxes form one (a
  /// Cartesian decomposition always does), else a scan of every box.
  int owner(const index_t (&c)[3]) const {
    if (!cuts_[0].empty()) {
      std::size_t k = 0;
      for (std::size_t a = 3; a-- > 0;) {
        const auto& cut = cuts_[a];
        const auto i = static_cast<std::size_t>(std::upper_bound(cut.begin(), cut.end(), c[a]) - cut.begin());
        k = k * cut.size() + (i > 0 ? i - 1 : 0);
      }
      const int r = cell_owner_[k];
      if (inside(r, c)) return r;
    }
    for (std::size_t r = 0; r < s_.boxes.size(); ++r)
      if (inside(static_cast<int>(r), c)) return static_cast<int>(r);
    throw Error("lbm: no rank owns a cell; the boxes do not tile the grid");
  }

  const field::PaddedGrid& grid() const { return grid_; }

  /// Physical centre of global cell c in the bodies' coordinates: (c + 1/2) dx, z = 0 in 2D.
  Real3 centre(const index_t (&c)[3]) const {
    Real3 p{0.0, 0.0, 0.0};
    for (int d = 0; d < s_.dims; ++d) p[static_cast<std::size_t>(d)] = (double(c[d]) + 0.5) * s_.dx;
    return p;
  }

  /// The first body (Setup order) holding the centre of global cell c, or -1. Cell centres are at
  /// (c + 1/2) dx, z = 0 in 2D; the answer depends on c alone, so every rank agrees.
  int body_at(const index_t (&c)[3]) const {
    const Real3 p = centre(c);
    for (std::size_t b = 0; b < s_.bodies.size(); ++b) {
      const geometry::Aabb box = s_.bodies[b]->bounds();
      bool in_box = true;
      for (std::size_t d = 0; d < 3; ++d) in_box = in_box && p[d] >= box.lo[d] && p[d] <= box.hi[d];
      if (in_box && s_.bodies[b]->inside(p)) return static_cast<int>(b);
    }
    return -1;
  }

 private:
  bool inside(int r, const index_t (&c)[3]) const {
    const auto& b = s_.boxes[static_cast<std::size_t>(r)];
    for (std::size_t a = 0; a < static_cast<std::size_t>(s_.dims); ++a)
      if (c[a] < b[0][a] || c[a] >= b[0][a] + b[1][a]) return false;
    return true;
  }

  /// The process grid of the boxes: per axis the sorted box starts (cuts_), and the rank of each
  /// combination (cell_owner_). Left empty when the boxes are not a tensor product of per-axis splits.
  void index_owners() {
    const std::size_t dims = static_cast<std::size_t>(s_.dims);
    for (const auto& b : s_.boxes)
      for (std::size_t a = 0; a < 3; ++a) cuts_[a].push_back(a < dims ? b[0][a] : 0);
    std::size_t cells = 1;
    for (auto& cut : cuts_) {
      std::sort(cut.begin(), cut.end());
      cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
      cells *= cut.size();
    }
    cell_owner_.assign(cells, -1);
    bool grid = cells == s_.boxes.size();
    for (std::size_t r = 0; r < s_.boxes.size() && grid; ++r) {
      std::size_t k = 0;
      for (std::size_t a = 3; a-- > 0;) {
        const auto& cut = cuts_[a];
        const index_t start = a < dims ? s_.boxes[r][0][a] : 0;
        k = k * cut.size() +
            static_cast<std::size_t>(std::lower_bound(cut.begin(), cut.end(), start) - cut.begin());
      }
      grid = cell_owner_[k] < 0;
      cell_owner_[k] = static_cast<int>(r);
    }
    if (!grid)
      for (auto& cut : cuts_) cut.clear();
  }

  /// The pattern of the entries `enumerate(add)` hands to add(peer, side (0 send, 1 recv), entry).
  template <class F>
  static field::Pattern make_pattern(F&& enumerate) {
    std::map<int, std::array<std::vector<index_t>, 2>> lists;  // peer -> {send, recv}
    enumerate([&](int peer, int side, index_t entry) { lists[peer][side].push_back(entry); });
    field::Pattern pat;
    for (auto& kv : lists) {
      field::Pattern::Peer p;
      p.rank = kv.first;
      p.send.from_host(kv.second[0]);
      p.recv.from_host(kv.second[1]);
      pat.peers.push_back(std::move(p));
    }
    return pat;
  }

  const Setup& s_;
  field::PaddedGrid grid_;
  std::array<std::vector<index_t>, 3> cuts_;
  std::vector<int> cell_owner_;
};

}  // namespace eddy::lbm
