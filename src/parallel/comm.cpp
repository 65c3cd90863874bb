#include "parallel/comm.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

namespace eddy::parallel {

namespace {
// 128-bit integers (a GCC and Clang extension) for the exact sums.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;
}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    owns_ = true;
  }
}

MpiSession::~MpiSession() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (owns_ && !finalised) MPI_Finalize();
}

int Comm::rank() const {
  int r = 0;
  MPI_Comm_rank(comm_, &r);
  return r;
}

int Comm::size() const {
  int s = 1;
  MPI_Comm_size(comm_, &s);
  return s;
}

void Comm::barrier() const { MPI_Barrier(comm_); }

namespace {
template <class T>
T allreduce(T v, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  T r{};
  MPI_Allreduce(&v, &r, 1, type, op, comm);
  return r;
}
}  // namespace

double Comm::sum(double v) const { return allreduce(v, MPI_DOUBLE, MPI_SUM, comm_); }
double Comm::max(double v) const { return allreduce(v, MPI_DOUBLE, MPI_MAX, comm_); }
double Comm::min(double v) const { return allreduce(v, MPI_DOUBLE, MPI_MIN, comm_); }
long Comm::sum(long v) const { return allreduce(v, MPI_LONG, MPI_SUM, comm_); }
long Comm::max(long v) const { return allreduce(v, MPI_LONG, MPI_MAX, comm_); }

void Comm::max(std::vector<double>& v) const {
  constexpr std::size_t chunk = std::size_t(1) << 30;
  for (std::size_t at = 0; at < v.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, v.size() - at));
    MPI_Allreduce(MPI_IN_PLACE, v.data() + at, n, MPI_DOUBLE, MPI_MAX, comm_);
  }
}

std::vector<double> Comm::sum_exact(const std::vector<std::vector<double>>& terms, double max_terms) const {
  const std::size_t entries = terms.size();
  std::vector<double> largest(entries, 0.0);
  for (std::size_t e = 0; e < entries; ++e)
    for (double t : terms[e]) largest[e] = std::max(largest[e], std::fabs(t));
  max(largest);
  // Per entry the scale 2^s: |sum| <= max_terms x largest x 2^s < 2^100 (frexp: x = m 2^k, 0.5 <= m < 1).
  std::vector<int> shift(entries, 0);
  for (std::size_t e = 0; e < entries; ++e) {
    if (!(largest[e] > 0) || !std::isfinite(largest[e])) continue;
    int k = 0;
    std::frexp(largest[e] * std::max(1.0, max_terms), &k);
    shift[e] = 100 - k;
  }
  // Each entry's 128-bit sum as three limbs that add without carries over up to 2^30 ranks: bits 0-31,
  // bits 32-63 (both unsigned) and the rest (signed, |x| < 2^37).
  std::vector<long long> limbs(3 * entries, 0);
  for (std::size_t e = 0; e < entries; ++e) {
    Int128 s = 0;
    for (double t : terms[e]) s += static_cast<Int128>(std::nearbyint(std::ldexp(t, shift[e])));
    const auto u = static_cast<UInt128>(s);
    limbs[3 * e] = static_cast<long long>(u & 0xffffffffu);
    limbs[3 * e + 1] = static_cast<long long>((u >> 32) & 0xffffffffu);
    limbs[3 * e + 2] = static_cast<long long>(s >> 64);
  }
  std::vector<double> out = sum_limbs(limbs, shift);
  for (std::size_t e = 0; e < entries; ++e)
    if (!std::isfinite(largest[e])) out[e] = largest[e];
  return out;
}

std::vector<double> Comm::sum_limbs(std::vector<long long>& limbs, const std::vector<int>& shift) const {
  constexpr std::size_t chunk = std::size_t(1) << 30;
  for (std::size_t at = 0; at < limbs.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, limbs.size() - at));
    MPI_Allreduce(MPI_IN_PLACE, limbs.data() + at, n, MPI_LONG_LONG, MPI_SUM, comm_);
  }
  const std::size_t entries = limbs.size() / 3;
  std::vector<double> out(entries, 0.0);
  for (std::size_t e = 0; e < entries; ++e) {
    const Int128 s = static_cast<Int128>(limbs[3 * e + 2]) * (static_cast<Int128>(1) << 64) +
                     static_cast<Int128>(limbs[3 * e + 1]) * (static_cast<Int128>(1) << 32) +
                     static_cast<Int128>(limbs[3 * e]);
    out[e] = std::ldexp(static_cast<double>(s), -shift[shift.size() == 1 ? 0 : e]);
  }
  return out;
}

void Comm::sum(std::vector<double>& v) const {
  // MPI counts are int: reduce in chunks of at most 2^30 values.
  constexpr std::size_t chunk = std::size_t(1) << 30;
  for (std::size_t at = 0; at < v.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, v.size() - at));
    MPI_Allreduce(MPI_IN_PLACE, v.data() + at, n, MPI_DOUBLE, MPI_SUM, comm_);
  }
}

std::string Comm::broadcast(const std::string& s) const {
  long n = static_cast<long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG, 0, comm_);
  std::string out = s;
  out.resize(static_cast<size_t>(n));
  // MPI counts are int: broadcast in pieces of at most 2^30 bytes.
  constexpr std::size_t piece = std::size_t(1) << 30;
  for (std::size_t at = 0; at < out.size(); at += piece)
    MPI_Bcast(out.data() + at, static_cast<int>(std::min(piece, out.size() - at)), MPI_CHAR, 0, comm_);
  return out;
}

std::vector<std::string> Comm::allgather(const std::string& s) const {
  const int n = size();
  int mine = static_cast<int>(s.size());
  std::vector<int> counts(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  int total = 0;
  for (int r = 0; r < n; ++r)
    offsets[static_cast<std::size_t>(r)] = total, total += counts[static_cast<std::size_t>(r)];
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(s.data(), mine, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, comm_);
  std::vector<std::string> out;
  for (int r = 0; r < n; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(counts[static_cast<std::size_t>(r)])));
  return out;
}

bool Comm::any(bool flag) const {
  int v = flag ? 1 : 0, r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_LOR, comm_);
  return r != 0;
}

void Comm::abort(int code) const {
  MPI_Abort(comm_, code);
  std::exit(code);
}

namespace {
// This rank's index among the ranks of its node, and their number (MPI_COMM_TYPE_SHARED split).
std::array<int, 2> node_local(MPI_Comm comm, int rank) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  std::array<int, 2> rs{0, 1};
  MPI_Comm_rank(node, &rs[0]);
  MPI_Comm_size(node, &rs[1]);
  MPI_Comm_free(&node);
  return rs;
}
}  // namespace

int Comm::node_local_rank() const { return node_local(comm_, rank())[0]; }
int Comm::node_local_size() const { return node_local(comm_, rank())[1]; }

SplitComm::SplitComm(const Comm& parent, int color, int key) {
  MPI_Comm_split(parent.native(), color, key, &comm_);
}

SplitComm::~SplitComm() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (comm_ != MPI_COMM_NULL && !finalised) MPI_Comm_free(&comm_);
}

std::string Comm::mpi_version() {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string Comm::hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof(buf) - 1);
  return buf;
}

}  // namespace eddy::parallel
