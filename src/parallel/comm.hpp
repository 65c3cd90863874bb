#pragma once
/// The MPI communicator of a run: the only way the rest of eddy talks to MPI outside src/parallel.
///
/// Solvers never see this type; the app, the writers (io/) and sim/ do. Collective calls must be made
/// by every rank of the communicator.
#include <mpi.h>

#include <string>
#include <vector>

#include "core/types.hpp"

namespace eddy::parallel {

/// Initialises MPI on construction (if nobody has yet) and finalises it on destruction.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owns_ = false;
};

/// A non-owning handle on an MPI communicator with the few collectives eddy needs.
class Comm {
 public:
  explicit Comm(MPI_Comm c = MPI_COMM_WORLD) : comm_(c) {}
  MPI_Comm native() const { return comm_; }
  int rank() const;
  int size() const;
  bool root() const { return rank() == 0; }

  void barrier() const;
  double sum(double v) const;  ///< allreduce sum (result identical on every rank)
  double max(double v) const;  ///< allreduce max
  double min(double v) const;  ///< allreduce min
  long sum(long v) const;
  long max(long v) const;
  /// Element-wise allreduce sum of a vector of the same length on every rank, in place. Sums where at
  /// most one rank holds a non-zero value are exact, which is how the end-of-run checks assemble a
  /// profile or a few probe values from the ranks that own them. Chunked: any length.
  void sum(std::vector<double>& v) const;
  /// Element-wise allreduce max, in place (any length).
  void max(std::vector<double>& v) const;
  /// Exact sums over the ranks, the same bits for any rank count and any split of the terms:
  /// out[e] = the sum of every rank's terms[e][...], rounded once to double. Each entry is summed in
  /// fixed point (a 128-bit integer per entry, in units of 2^-s with s chosen from the entry's largest
  /// term and `max_terms`, the most terms any entry has over all ranks, so that no sum overflows 2^100):
  /// a term below 2^-60 of its entry's largest is lost, nothing else. Statistics profiles reduce with it
  /// (a rank's terms are its cells of one profile point). Collective.
  std::vector<double> sum_exact(const std::vector<std::vector<double>>& terms, double max_terms) const;
  /// Exact sums over the ranks of 128-bit integers, three limbs an entry (bits 0-31 and bits 32-63, each
  /// in [0, 2^32), and the rest, signed: field::fixed_limbs, field::ProfileSums), reduced in place (so
  /// every rank has the totals' limbs, not normalized), and each total x 2^-shift[e] (one shift for all
  /// when `shift` has one entry) rounded once to double. Up to 2^30 ranks.
  std::vector<double> sum_limbs(std::vector<long long>& limbs, const std::vector<int>& shift) const;
  /// Broadcast a string from rank 0 to all.
  std::string broadcast(const std::string& s) const;
  /// Every rank's `s`, in rank order (the strings may differ in length).
  std::vector<std::string> allgather(const std::string& s) const;
  /// Every rank learns whether any rank passed true (for collective error decisions).
  bool any(bool flag) const;
  /// Abort the whole job (all ranks) with an exit code; used when a rank cannot continue alone.
  [[noreturn]] void abort(int code) const;
  /// Rank among the ranks of this node (MPI_COMM_TYPE_SHARED split): picks this rank's GPU.
  int node_local_rank() const;
  /// Ranks on this node (the same split).
  int node_local_size() const;
  /// Hostname of this rank.
  static std::string hostname();
  /// The MPI standard version the library implements, e.g. "3.1".
  static std::string mpi_version();

 private:
  MPI_Comm comm_;
};

/// A communicator split off another (MPI_Comm_split: ranks of equal `color`, ordered by `key`), owned:
/// freed on destruction. Collective over the parent.
class SplitComm {
 public:
  SplitComm(const Comm& parent, int color, int key);
  ~SplitComm();
  SplitComm(const SplitComm&) = delete;
  SplitComm& operator=(const SplitComm&) = delete;
  Comm comm() const { return Comm(comm_); }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace eddy::parallel
