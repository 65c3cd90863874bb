#pragma once
/// The host memory and CPU time of this process.
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>

namespace eddy {

/// Peak resident set size of this process so far [bytes] (getrusage; Linux reports KiB).
inline std::size_t peak_resident_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::size_t>(u.ru_maxrss) * 1024;
}

/// Physical memory of this host [bytes] (sysconf).
inline double physical_memory_bytes() {
  return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
}

/// CPU time this process has used so far, user and system, all threads [s] (getrusage): a rank's own
/// work, which oversubscribed cores do not stretch as they stretch its wall-clock time.
inline double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace eddy
