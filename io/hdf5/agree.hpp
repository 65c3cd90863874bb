#pragma once
/// Collective error agreement for the io/hdf5 writers: when one rank fails, every rank throws.
#include <string>

#include "parallel/comm.hpp"

namespace eddy::io {

/// Collective. If `ok` is false on any rank, every rank throws eddy::Error (eddy::InputError when
/// `input_error`) carrying the message of the lowest failing rank, suffixed with "(rank R)" when there
/// is more than one rank; else returns.
void throw_if_any_failed(const parallel::Comm& comm, bool ok, const std::string& message,
                         bool input_error = false);

}  // namespace eddy::io
