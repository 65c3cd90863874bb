// Bookkeeping of the memory allocate() hands out (backend.hpp: memory_usage), the same for every backend:
// the sizes of live allocations by address, a running total and its peak.
#include <mutex>
#include <unordered_map>

#include "backend/backend.hpp"

namespace eddy::backend {
namespace {

struct Ledger {
  std::mutex lock;
  std::unordered_map<void*, std::size_t> live;
  MemoryUsage usage;
};
Ledger& ledger() {
  static Ledger l;
  return l;
}

}  // namespace

namespace detail {

void count_allocation(void* p, std::size_t bytes) {
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> g(l.lock);
  l.live[p] = bytes;
  l.usage.current += bytes;
  if (l.usage.current > l.usage.peak) l.usage.peak = l.usage.current;
}

void count_deallocation(void* p) noexcept {
  if (!p) return;
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> g(l.lock);
  const auto it = l.live.find(p);
  if (it == l.live.end()) return;
  l.usage.current -= it->second;
  l.live.erase(it);
}

}  // namespace detail

MemoryUsage memory_usage() {
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> g(l.lock);
  return l.usage;
}

void reset_peak_memory() {
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> g(l.lock);
  l.usage.peak = l.usage.current;
}

}  // namespace eddy::backend
