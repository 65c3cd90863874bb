#include "parallel/halo.hpp"

#include "backend/backend.hpp"
#include "backend/profile.hpp"
#include "parallel/transport.hpp"

namespace eddy::parallel {
namespace {

class PatternExchanger final : public field::Exchanger {
 public:
  PatternExchanger(const Comm& comm, std::unique_ptr<Transport> t)
      : comm_(comm), me_(comm.rank()), transport_(std::move(t)) {}

  void start(void* data, int elem_bytes, const field::Pattern& p, field::Direction d) override {
    backend::PhaseTimer& timer = backend::phase_timer();  // eddy bench's breakdown; no-ops when off
    const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::pack);
    data_ = data, bytes_ = elem_bytes, pattern_ = &p, dir_ = d;
    if (buffers_.size() < p.peers.size()) buffers_.resize(p.peers.size());
    sends_.clear(), recvs_.clear();
    for (std::size_t k = 0; k < p.peers.size(); ++k) {
      const field::Pattern::Peer& peer = p.peers[k];
      const auto& out = d == field::Direction::forward ? peer.send : peer.recv;
      const auto& in = d == field::Direction::forward ? peer.recv : peer.send;
      if (peer.rank == me_) {
        field::copy_indexed(data, elem_bytes, out.data(), in.data(), static_cast<index_t>(in.size()));
        continue;
      }
      Buffers& b = buffers_[k];
      const std::size_t n_out = out.size() * static_cast<std::size_t>(elem_bytes);
      const std::size_t n_in = in.size() * static_cast<std::size_t>(elem_bytes);
      if (b.out.size() < n_out) b.out.resize(n_out);
      if (b.in.size() < n_in) b.in.resize(n_in);
      field::gather(data, elem_bytes, out.data(), static_cast<index_t>(out.size()), b.out.data());
      sends_.push_back({peer.rank, b.out.data(), n_out});
      recvs_.push_back({peer.rank, b.in.data(), n_in});
      timer.add_sent(n_out);
    }
    // Profiled, the ranks meet before the transfer (`wait`), as in the transposes (transpose.cpp): the
    // transfer's time is then the messages', not a neighbour's lag.
    timer.to(backend::PhaseTimer::wait);
    if (timer.on()) comm_.barrier();
    timer.to(backend::PhaseTimer::transfer);
    transport_->start(sends_, recvs_);
    timer.to(caller);
  }

  void finish() override {
    if (!pattern_) return;
    backend::PhaseTimer& timer = backend::phase_timer();
    const backend::PhaseTimer::Phase caller = timer.to(backend::PhaseTimer::transfer);
    transport_->finish();  // with the inner cells' update queued before it: what is left of the messages
    timer.to(backend::PhaseTimer::unpack);
    for (std::size_t k = 0; k < pattern_->peers.size(); ++k) {
      const field::Pattern::Peer& peer = pattern_->peers[k];
      if (peer.rank == me_) continue;
      const auto& in = dir_ == field::Direction::forward ? peer.recv : peer.send;
      field::scatter(buffers_[k].in.data(), bytes_, in.data(), static_cast<index_t>(in.size()), data_);
    }
    pattern_ = nullptr;
    timer.to(caller);
  }

  const char* name() const override {  // for the log: `auto` names its choice once made
    name_ = transport_->name();
    return name_.c_str();
  }

 private:
  struct Buffers {
    backend::DeviceArray<char> out, in;
  };
  Comm comm_;
  int me_;
  std::unique_ptr<Transport> transport_;
  mutable std::string name_;
  std::vector<Buffers> buffers_;
  std::vector<Message> sends_, recvs_;
  void* data_ = nullptr;
  int bytes_ = 0;
  const field::Pattern* pattern_ = nullptr;
  field::Direction dir_ = field::Direction::forward;
};

}  // namespace

std::unique_ptr<field::Exchanger> make_exchanger(const std::string& mode, const Comm& comm) {
  if (comm.size() == 1) {
    check_transport(mode);
    return std::make_unique<field::LocalExchanger>();
  }
  return std::make_unique<PatternExchanger>(comm, make_transport(mode, comm));
}

}  // namespace eddy::parallel
