#include "field/exchange.hpp"

#include <cstdint>

#include "backend/parallel.hpp"
#include "core/error.hpp"

namespace eddy::field {
namespace {

template <class T>
void gather_t(const void* data, const index_t* idx, index_t n, void* buf) {
  const T* d = static_cast<const T*>(data);
  T* b = static_cast<T*>(buf);
  backend::parallel_for("halo::pack", n, [=] EDDY_DEVICE(index_t k) { b[k] = d[idx[k]]; });
}
template <class T>
void scatter_t(const void* buf, const index_t* idx, index_t n, void* data) {
  const T* b = static_cast<const T*>(buf);
  T* d = static_cast<T*>(data);
  backend::parallel_for("halo::unpack", n, [=] EDDY_DEVICE(index_t k) { d[idx[k]] = b[k]; });
}
template <class T>
void copy_t(void* data, const index_t* from, const index_t* to, index_t n) {
  T* d = static_cast<T*>(data);
  backend::parallel_for("halo::copy", n, [=] EDDY_DEVICE(index_t k) { d[to[k]] = d[from[k]]; });
}

[[noreturn]] void bad_size(int b) {
  throw Error("halo exchange: unsupported element size " + std::to_string(b));
}

}  // namespace

void gather(const void* data, int elem_bytes, const index_t* idx, index_t n, void* buf) {
  if (n <= 0) return;
  switch (elem_bytes) {
    case 2:
      return gather_t<std::uint16_t>(data, idx, n, buf);
    case 4:
      return gather_t<std::uint32_t>(data, idx, n, buf);
    case 8:
      return gather_t<std::uint64_t>(data, idx, n, buf);
    default:
      bad_size(elem_bytes);
  }
}

void scatter(const void* buf, int elem_bytes, const index_t* idx, index_t n, void* data) {
  if (n <= 0) return;
  switch (elem_bytes) {
    case 2:
      return scatter_t<std::uint16_t>(buf, idx, n, data);
    case 4:
      return scatter_t<std::uint32_t>(buf, idx, n, data);
    case 8:
      return scatter_t<std::uint64_t>(buf, idx, n, data);
    default:
      bad_size(elem_bytes);
  }
}

void copy_indexed(void* data, int elem_bytes, const index_t* from, const index_t* to, index_t n) {
  if (n <= 0) return;
  switch (elem_bytes) {
    case 2:
      return copy_t<std::uint16_t>(data, from, to, n);
    case 4:
      return copy_t<std::uint32_t>(data, from, to, n);
    case 8:
      return copy_t<std::uint64_t>(data, from, to, n);
    default:
      bad_size(elem_bytes);
  }
}

void LocalExchanger::start(void* data, int elem_bytes, const Pattern& p, Direction d) {
  for (const Pattern::Peer& peer : p.peers) {
    // With one rank every peer is this rank: its send list holds the images of its recv list.
    const index_t n = static_cast<index_t>(peer.recv.size());
    if (d == Direction::forward)
      copy_indexed(data, elem_bytes, peer.send.data(), peer.recv.data(), n);
    else
      copy_indexed(data, elem_bytes, peer.recv.data(), peer.send.data(), n);
  }
}

}  // namespace eddy::field
