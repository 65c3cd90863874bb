#include "core/log.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>

#include "core/memory.hpp"

namespace eddy::log {
namespace {
int g_rank = 0;
bool g_quiet = false;
std::ofstream g_file;
std::mutex g_mutex;

void emit(std::ostream& term, const std::string& line, bool to_terminal) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (to_terminal) term << line << '\n' << std::flush;
  if (g_file.is_open()) g_file << line << '\n' << std::flush;
}
}  // namespace

double seconds_since_start() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double cpu_seconds_at_start() {
  static const double at_start = cpu_seconds();
  return at_start;
}

void set_rank(int rank) {
  (void)seconds_since_start();
  (void)cpu_seconds_at_start();
  g_rank = rank;
}
void set_quiet(bool quiet) { g_quiet = quiet; }

void open_file(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_file.is_open()) g_file.close();
  if (!path.empty() && g_rank == 0) g_file.open(path, std::ios::out | std::ios::app);
}

void info(const std::string& line) {
  if (g_rank != 0) return;
  emit(std::cout, line, !g_quiet);
}

void warn(const std::string& line) {
  if (g_rank != 0) return;
  emit(std::cerr, "warning: " + line, true);
}

void error(const std::string& line) { emit(std::cerr, "error: " + line, true); }

}  // namespace eddy::log
