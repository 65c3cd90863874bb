#pragma once
/// `eddy plan`: what a run of a config needs on P ranks, before it is submitted — per-rank device and host
/// memory, halo or transpose bytes per step, field and checkpoint file sizes, and a predicted time per step
/// from a stated model (src/README.md, Command line; cases/benchmarks/scaling_model.md). Nothing is
/// allocated on a device and nothing is written but the optional JSON: it runs on a login node.
#include <string>

#include "io/config/run_spec.hpp"

namespace eddy::app {

/// The job shape and the model's inputs; 0 (or empty) = the default, stated in the output.
struct PlanOptions {
  int ranks = 0;                 ///< --ranks N (default: nodes x gpus_per_node, else 1)
  int nodes = 0;                 ///< --nodes N
  int gpus_per_node = 0;         ///< --gpus-per-node G (default 8, or the ranks when fewer)
  std::string bench;             ///< --bench FILE: an `eddy bench` JSON of one GPU, the single-GPU speed
  double device_memory_gib = 0;  ///< --device-memory GIB (default: the bench JSON's device, else an H200)
  double link_gbs = 0;           ///< --link-bandwidth: GPU to GPU inside a node, GB/s each way
  double link_us = 0;            ///< --link-latency, microseconds per message
  double network_gbs = 0;        ///< --network-bandwidth: a node's injection bandwidth, GB/s
  double network_us = 0;         ///< --network-latency, microseconds per message
  std::string json;              ///< --json FILE
  bool cpu = false;              ///< --target cpu: ranks on the CPU backend (default: GPUs)
};

/// Print the plan of `spec` (rank 0 of the caller prints; the plan itself is computed alone, without MPI).
/// Throws InputError (exit 2) when a rank's block does not fit the device, naming the rank count that
/// would, or when the ranks cannot be mapped onto the nodes.
void plan(const config::RunSpec& spec, const PlanOptions& options, bool print);

/// The same refusal for a run about to start on `ranks` ranks with `device_gib` of device memory each, of
/// which `reserve_gib` stay free, on the CPU backend (`cpu`) or GPUs: InputError naming the block, the
/// bytes it needs and the rank count that would fit.
void check_fits_device(const config::RunSpec& spec, int ranks, double device_gib, double reserve_gib,
                       bool cpu);

}  // namespace eddy::app
