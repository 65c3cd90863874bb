#pragma once
/// Logging: rank 0 prints to the terminal and, once a run directory exists, to run.log as well.
#include <sstream>
#include <string>

namespace eddy::log {

/// Set by the app after MPI is up: only rank 0 prints info/warnings (errors print on every rank).
void set_rank(int rank);
/// Wall-clock seconds since the first call (set_rank makes it, at the start of main after MPI_Init).
double seconds_since_start();
/// This process's CPU time (core/memory.hpp: cpu_seconds) at that first call.
double cpu_seconds_at_start();
/// Tee every later line into this file (run.log); "" closes it.
void open_file(const std::string& path);
/// Quiet mode for tests: info lines are not printed on the terminal (still go to the file).
void set_quiet(bool quiet);

void info(const std::string& line);
void warn(const std::string& line);
/// Printed on every rank, prefixed with the rank when more than one exists.
void error(const std::string& line);

/// Concatenate anything streamable: log::info(cat("step ", n)).
template <class... A>
std::string cat(const A&... a) {
  std::ostringstream s;
  (s << ... << a);
  return s.str();
}

}  // namespace eddy::log
