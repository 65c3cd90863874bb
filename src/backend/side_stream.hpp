#pragma once
/// A stream beside the compute stream, for the CUDA builds' communication (backend/device_comm.cpp: NCCL;
/// backend/peer_copy.cpp: copy engines): work queued on it after fork() starts once the work queued so
/// far on the compute stream is done; record_done() marks the end of the work queued on it so far, and
/// after join() the compute stream's later work waits for that. Non-blocking: no other ordering with the
/// compute stream. Included by CUDA translation units only.
#include <cuda_runtime.h>

#include <string>

#include "backend/backend.hpp"
#include "core/error.hpp"

namespace eddy::backend::detail {

class SideStream {
 public:
  /// `high_priority`: its kernels are scheduled ahead of the compute stream's (NCCL's few blocks).
  explicit SideStream(bool high_priority) {
    int least = 0, greatest = 0;
    check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities");
    check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, high_priority ? greatest : least),
          "stream");
    check(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "event");
    check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "event");
  }
  ~SideStream() {
    synchronize();
    if (ready_) (void)cudaEventDestroy(ready_);
    if (done_) (void)cudaEventDestroy(done_);
    if (stream_) (void)cudaStreamDestroy(stream_);
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;

  cudaStream_t get() const { return stream_; }
  void fork() {
    check(cudaEventRecord(ready_, compute()), "event record");
    check(cudaStreamWaitEvent(stream_, ready_, 0), "stream wait");
  }
  void record_done() { check(cudaEventRecord(done_, stream_), "event record"); }
  void join() { check(cudaStreamWaitEvent(compute(), done_, 0), "stream wait"); }
  /// The host waits for the work queued on it (teardown).
  void synchronize() {
    if (stream_) (void)cudaStreamSynchronize(stream_);
  }
  static cudaStream_t compute() { return static_cast<cudaStream_t>(compute_stream()); }

 private:
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
      throw Error(std::string("CUDA (side stream): ") + what + ": " + cudaGetErrorString(e));
  }
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ready_ = nullptr, done_ = nullptr;
};

}  // namespace eddy::backend::detail
