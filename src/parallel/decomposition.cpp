#include "parallel/decomposition.hpp"

#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "core/log.hpp"

namespace eddy::parallel {
using log::cat;

Int3 Decomposition::coords_of(int r) const {
  const index_t z = r % ranks[2], y = (r / ranks[2]) % ranks[1], x = r / (ranks[2] * ranks[1]);
  return {x, y, z};
}

Decomposition Decomposition::make(int dims, const Int3& global, const std::vector<long>& requested,
                                  const Comm& comm) {
  return make(dims, global, requested, comm.size(), comm.rank());
}

Decomposition Decomposition::make(int dims, const Int3& global, const std::vector<long>& requested, int size,
                                  int rank) {
  Decomposition d;
  d.dims = dims;
  d.global = global;
  d.rank = rank;
  int n[3] = {0, 0, dims == 3 ? 0 : 1};
  if (!requested.empty()) {
    long product = 1;
    for (int a = 0; a < dims; ++a) {
      n[a] = static_cast<int>(requested[static_cast<std::size_t>(a)]);
      product *= requested[static_cast<std::size_t>(a)];
    }
    if (product != size)
      throw InputError(cat("parallel.ranks: ", product, " ranks in the process grid, but the job has ", size,
                           " MPI rank(s); give ranks whose product is ", size,
                           ", or leave parallel.ranks empty"));
  } else {
    // MPI_Dims_create's counts, placed so that the slow axes take the large ones (z in 3D, y in 2D):
    // blocks keep whole rows of the x-fastest layout, their exchanged faces are contiguous planes, and an
    // LBM block wraps its own periodic x (and y) instead of exchanging it. The first placement in
    // lexicographic order (x least split, then y) that gives every rank a cell along every axis wins; a
    // thin axis (a 3D run with few z planes) is thus left to the others.
    MPI_Dims_create(size, dims, n);
    std::array<int, 3> c{n[0], n[1], n[2]};
    const auto end = c.begin() + dims;
    // Ascending (three entries at most; std::sort's insertion step trips GCC 12's -Warray-bounds here).
    for (int i = 1; i < dims; ++i)
      for (int j = i; j > 0 && c[static_cast<std::size_t>(j)] < c[static_cast<std::size_t>(j - 1)]; --j)
        std::swap(c[static_cast<std::size_t>(j)], c[static_cast<std::size_t>(j - 1)]);
    std::array<int, 3> fit = c;
    do {
      bool ok = true;
      for (int a = 0; a < dims; ++a)
        ok = ok && c[static_cast<std::size_t>(a)] <= global[static_cast<std::size_t>(a)];
      if (ok) {
        fit = c;
        break;
      }
    } while (std::next_permutation(c.begin(), end));
    for (int a = 0; a < 3; ++a) n[a] = fit[static_cast<std::size_t>(a)];
  }
  for (int a = 0; a < 3; ++a) {
    d.ranks[static_cast<std::size_t>(a)] = a < dims ? n[a] : 1;
    if (d.ranks[static_cast<std::size_t>(a)] > global[static_cast<std::size_t>(a)])
      throw InputError(cat("domain.cells: ", global[static_cast<std::size_t>(a)], " cells along ", "xyz"[a],
                           " cannot be split over ", d.ranks[static_cast<std::size_t>(a)],
                           " ranks (each rank needs at least one cell); use fewer ranks",
                           requested.empty() ? "" : " or another parallel.ranks"));
  }
  d.boxes.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const Int3 c = d.coords_of(r);
    Box& b = d.boxes[static_cast<std::size_t>(r)];
    for (std::size_t a = 0; a < 3; ++a) {
      const index_t q = global[a] / d.ranks[a], rem = global[a] % d.ranks[a];
      b.extent[a] = q + (c[a] < rem ? 1 : 0);
      b.offset[a] = c[a] * q + std::min(c[a], rem);
    }
  }
  return d;
}

std::string Decomposition::describe() const {
  std::string s = cat(ranks[0], " x ", ranks[1]);
  if (dims == 3) s += cat(" x ", ranks[2]);
  s += " ranks; this rank's box: offset (";
  for (int a = 0; a < dims; ++a) s += cat(a ? ", " : "", mine().offset[static_cast<std::size_t>(a)]);
  s += ") extent (";
  for (int a = 0; a < dims; ++a) s += cat(a ? ", " : "", mine().extent[static_cast<std::size_t>(a)]);
  return s + ")";
}

}  // namespace eddy::parallel
