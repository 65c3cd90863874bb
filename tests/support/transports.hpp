#pragma once
// The parallel.comm modes the MPI tests exercise: every one this build and machine can run.
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/device_comm.hpp"
#include "parallel/transport.hpp"
#include "tests/support/one_sided_emulated.hpp"

namespace eddy::test {

/// 'mpi' always; 'mpi-gpu' on the CPU backend (MPI takes the host arrays as they are) or with a
/// CUDA-aware MPI; 'nccl' where it is built in; 'peer' where the ranks' GPUs reach each other (one host,
/// a GPU per rank); 'auto' (tries them in turn on its first rounds). Collective over MPI_COMM_WORLD.
inline std::vector<std::string> available_transports() {
  std::vector<std::string> m{"mpi", "auto"};
  if (!backend::is_gpu() || parallel::mpi_device_aware()) m.push_back("mpi-gpu");
  if (backend::device_comm_available()) m.push_back("nccl");
  if (parallel::peer_usable(parallel::Comm())) m.push_back("peer");
  return m;
}

/// The modes of the transpose tests: available_transports(), and on the CPU backend the one-sided
/// rounds emulated by MPI messages (one_sided_emulated.hpp), which stand in there for 'peer'.
inline std::vector<std::string> transpose_transports() {
  std::vector<std::string> m = available_transports();
  if (!backend::is_gpu()) m.push_back("one-sided-emulated");
  return m;
}

/// The transport of a mode of transpose_transports().
inline std::unique_ptr<parallel::Transport> make_transport(const std::string& mode,
                                                           const parallel::Comm& comm) {
  if (mode == "one-sided-emulated") return std::make_unique<OneSidedEmulated>(comm);
  return parallel::make_transport(mode, comm);
}

}  // namespace eddy::test
