#pragma once
/// The host memory of this process.
#include <sys/resource.h>

#include <cstddef>

namespace eddy {

/// Peak resident set size of this process so far [bytes] (getrusage; Linux reports KiB).
inline std::size_t peak_resident_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::size_t>(u.ru_maxrss) * 1024;
}

}  // namespace eddy
