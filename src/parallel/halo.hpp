#pragma once
/// The MPI exchanger of ghost-cell patterns (field/exchange.hpp): entries are packed on the device into
/// one buffer per peer, moved by the run's Transport (parallel/transport.hpp: mpi, mpi-gpu or nccl) and
/// unpacked on the device. Messages go to every peer at once; a peer that is this rank itself (periodic
/// wrap-around) is a device copy.
#include <memory>
#include <string>

#include "field/exchange.hpp"
#include "parallel/comm.hpp"

namespace eddy::parallel {

/// Throws InputError (naming parallel.comm) when the mode is unknown or unavailable here. One rank gets
/// the local exchanger (periodic wrap-around copies only) after the same checks.
std::unique_ptr<field::Exchanger> make_exchanger(const std::string& comm_mode, const Comm& comm);

}  // namespace eddy::parallel
