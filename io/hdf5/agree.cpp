#include "io/hdf5/agree.hpp"

#include <mpi.h>

#include "core/error.hpp"

namespace eddy::io {

void throw_if_any_failed(const parallel::Comm& comm, bool ok, const std::string& message, bool input_error) {
  // One allreduce on the good path; the lowest failing rank then broadcasts its reason, so every
  // rank reports the same, specific message (Comm has no broadcast from another root).
  const int size = comm.size();
  int mine = ok ? size : comm.rank();
  int first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.native());
  if (first == size) return;
  long n = static_cast<long>(message.size());
  MPI_Bcast(&n, 1, MPI_LONG, first, comm.native());
  std::string text = message;
  text.resize(static_cast<size_t>(n));
  MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, first, comm.native());
  if (size > 1) text += " (rank " + std::to_string(first) + ")";
  if (input_error) throw InputError(text);
  throw Error(text);
}

}  // namespace eddy::io
