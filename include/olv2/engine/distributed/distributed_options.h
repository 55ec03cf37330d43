#pragma once
// How the ranks of a multi-process run talk: `dist_params`.
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// `dist_params`.
struct DistributedOptions {
  std::string backend;          // "gloo" or "nccl"; empty: NCCL on CUDA, Gloo on the CPU
  double timeout_s = 1800.0;    // a collective that waits longer fails (PyTorch's default)
  double bucket_cap_mb = 25.0;  // gradient all-reduce bucket size (DDP's default)
  // Each bucket's all-reduce (reduce-scatter under ZeRO stage 2) starts during the backward as
  // soon as its gradients are final, as DDP does; false: all of them after the backward.
  bool overlap_comm = true;

  static Schema schema();
  // An absent section keeps the defaults.
  static DistributedOptions from_config(const ConfigNode* section);
};

}  // namespace olv2
