#pragma once
/// The MPI exchanger of ghost-cell patterns (field/exchange.hpp), for parallel.comm:
///   mpi      host-staged: pack on the device, copy to host, MPI, copy back, unpack;
///   mpi-gpu  device buffers handed to a CUDA-aware MPI (checked at start-up).
/// Messages go to every peer at once (non-blocking); a peer that is this rank itself (periodic
/// wrap-around) is a device copy.
#include <memory>
#include <string>
#include <vector>

#include "field/exchange.hpp"
#include "parallel/comm.hpp"

namespace eddy::parallel {

/// Throws InputError (naming parallel.comm) when the mode is unknown or unavailable here.
std::unique_ptr<field::Exchanger> make_exchanger(const std::string& comm_mode, const Comm& comm);

/// Whether the MPI library can take device pointers (CUDA-aware); false on the CPU backend.
bool mpi_device_aware();
/// What the MPI library says about device memory, for `eddy info`.
std::string mpi_device_support();

}  // namespace eddy::parallel
