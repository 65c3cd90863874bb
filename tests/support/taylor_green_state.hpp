#pragma once
// The spectral solver's Taylor-Green initial state both ways: the host-built velocity array (what
// src/app/spectral_run.cpp built before the field was sampled on the device) through set_velocity, and
// set_taylor_green; and the state of a solver as plain numbers to compare them.
#include <cstring>
#include <vector>

#include "core/types.hpp"
#include "field/taylor_green.hpp"
#include "spectral/spectral_solver.hpp"

namespace eddy::test {

/// The Taylor-Green velocity (tg.dims components per point, x fastest) at the cell centres (i + 1/2) dx of
/// the whole n[0] x n[1] (x n[2]) grid, with the double expressions the host path used.
inline std::vector<double> taylor_green_whole(const field::TaylorGreen& tg, const Int3& n, const Real3& dx) {
  std::vector<double> u;
  u.reserve(static_cast<std::size_t>(n[0] * n[1] * (tg.dims == 3 ? n[2] : 1) * tg.dims));
  for (index_t z = 0; z < (tg.dims == 3 ? n[2] : 1); ++z)
    for (index_t y = 0; y < n[1]; ++y)
      for (index_t x = 0; x < n[0]; ++x) {
        const Real3 v = tg.velocity({(x + 0.5) * dx[0], (y + 0.5) * dx[1], (z + 0.5) * dx[2]});
        for (std::size_t d = 0; d < static_cast<std::size_t>(tg.dims); ++d) u.push_back(v[d]);
      }
  return u;
}

/// This rank's state (save_state: real and imaginary parts of every component of every local mode) as
/// doubles, whatever the solver's precision.
inline std::vector<double> state_numbers(spectral::Solver& s) {
  const std::vector<unsigned char> bytes = s.save_state();
  const std::size_t size = static_cast<std::size_t>(s.state_bytes()), count = bytes.size() / size;
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (size == sizeof(double)) {
      std::memcpy(&v[i], &bytes[i * size], size);
    } else {
      float f;
      std::memcpy(&f, &bytes[i * size], sizeof f);
      v[i] = f;
    }
  }
  return v;
}

}  // namespace eddy::test
