#pragma once
// Tests only: a run's final field assembled on rank 0, to compare a distributed run with a one-rank run
// value by value. eddy itself never gathers a field: its end-of-run checks reduce what each rank owns.
#include <mpi.h>

#include <vector>

#include "app/run.hpp"
#include "parallel/comm.hpp"

namespace eddy::test {

/// The whole velocity of `r` on rank 0 (x fastest, r.block.dims components); empty on the other ranks.
/// Collective.
inline std::vector<double> gathered_velocity(const app::RunResult& r, const parallel::Comm& comm) {
  const int ncomp = r.block.dims, tag = 91;
  const std::size_t per_cell = static_cast<std::size_t>(ncomp);
  if (!comm.root()) {
    long box[6] = {r.block.offset[0], r.block.offset[1], r.block.offset[2],
                   r.block.extent[0], r.block.extent[1], r.block.extent[2]};
    MPI_Send(box, 6, MPI_LONG, 0, tag, comm.native());
    MPI_Send(r.velocity.data(), static_cast<int>(r.velocity.size()), MPI_DOUBLE, 0, tag, comm.native());
    return {};
  }
  const Int3& n = r.block.global;
  std::vector<double> whole(static_cast<std::size_t>(n[0] * n[1] * n[2]) * per_cell);
  for (int rank = 0; rank < comm.size(); ++rank) {
    long box[6] = {r.block.offset[0], r.block.offset[1], r.block.offset[2],
                   r.block.extent[0], r.block.extent[1], r.block.extent[2]};
    std::vector<double> buf = r.velocity;
    if (rank > 0) {
      MPI_Recv(box, 6, MPI_LONG, rank, tag, comm.native(), MPI_STATUS_IGNORE);
      buf.resize(static_cast<std::size_t>(box[3] * box[4] * box[5]) * per_cell);
      MPI_Recv(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, rank, tag, comm.native(),
               MPI_STATUS_IGNORE);
    }
    std::size_t k = 0;
    for (long z = 0; z < box[5]; ++z)
      for (long y = 0; y < box[4]; ++y)
        for (long x = 0; x < box[3]; ++x, k += per_cell) {
          const long g = ((z + box[2]) * n[1] + (y + box[1])) * n[0] + (x + box[0]);
          for (std::size_t c = 0; c < per_cell; ++c)
            whole[static_cast<std::size_t>(g) * per_cell + c] = buf[k + c];
        }
  }
  return whole;
}

}  // namespace eddy::test
