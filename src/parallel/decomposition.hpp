#pragma once
/// Cartesian domain decomposition: which box of the global grid each rank owns.
///
/// Ranks form a process grid (MPI_Dims_create, or given), in C order: rank = (cx * ny + cy) * nz + cz.
/// Splits may be uneven: along a direction with N cells over n ranks, the first N % n ranks get one
/// cell more. Nothing here knows physics; solvers get the boxes as plain data.
#include <string>
#include <vector>

#include "core/types.hpp"
#include "parallel/comm.hpp"

namespace eddy::parallel {

/// One rank's box of the global grid.
struct Box {
  Int3 offset{0, 0, 0};
  Int3 extent{1, 1, 1};
};

struct Decomposition {
  int dims = 3;
  Int3 global{1, 1, 1};    ///< cells of the whole grid
  Int3 ranks{1, 1, 1};     ///< process grid
  int rank = 0;            ///< this rank
  std::vector<Box> boxes;  ///< every rank's box, indexed by rank

  const Box& mine() const { return boxes[static_cast<std::size_t>(rank)]; }
  /// Process-grid coordinates of a rank.
  Int3 coords_of(int r) const;

  /// Split `global` over `comm`'s ranks. `requested` is parallel.ranks (empty = MPI_Dims_create, its
  /// largest count along the slowest axis).
  /// Throws InputError (naming parallel.ranks or domain.cells) when the ranks do not multiply to the
  /// rank count or a direction has more ranks than cells.
  static Decomposition make(int dims, const Int3& global, const std::vector<long>& requested,
                            const Comm& comm);
  /// The same without MPI: for `size` ranks, as seen from `rank` (tests, planning).
  static Decomposition make(int dims, const Int3& global, const std::vector<long>& requested, int size,
                            int rank);
  /// "2 x 1 x 1 ranks, boxes 64..65 x 128 x 1 cells".
  std::string describe() const;
};

}  // namespace eddy::parallel
