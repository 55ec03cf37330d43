#pragma once
// DeepSpeed's ZeRO stages 1 and 2: optimizer state, and with stage 2 the gradients, sharded over
// the ranks.
#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/distributed/all_reduce_gradient_sync.h"
#include "olv2/engine/distributed/bucket_readiness.h"
#include "olv2/engine/distributed/gradient_buckets.h"
#include "olv2/engine/distributed/gradient_sync.h"
#include "olv2/engine/optimizer/training_optimizer.h"
#include "olv2/solver/optimizer.h"
#include "olv2/solver/param_groups.h"
#include "olv2/util/collective.h"
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// DeepSpeed's ZeRO stages 1 and 2 over the ranks of `collective`. The parameters are laid out
// in DDP's gradient buckets (one param group each), and every bucket is cut into world-size
// equal parts: rank r owns part r of every bucket. The optimizer's state (any registered type's:
// its per-parameter tensors, OptimizerOptions::state_entries) exists only for the rank's parts
// (an optimizer over flat part tensors, one param group per `groups` entry, so
// that the LR schedule drives it as it drives the unsharded one); each step the rank updates
// its parts and every bucket's parts are all-gathered into the parameters of every rank.
//
// Stage 1: gradients are all-reduced as without ZeRO (overlapped or not), every rank holds
// them whole until the step. Stage 2: each bucket is reduce-scattered instead (Gloo without a
// reduce-scatter: all-reduced, this rank's part kept) and the bucket's full gradients are freed
// at once, so that after the step's last backward a rank holds 1/world of the gradients; the
// other micro-batches of an accumulation step still accumulate whole gradients (DeepSpeed
// reduces at every micro-batch instead). The optimizers' updates are elementwise (Adam's, SGD's),
// so the weights equal the unsharded run's up to the global gradient norm's summation order.
class ZeroOptimizer : public TrainingOptimizer {
 public:
  // `trainable`: the parameters in the unsharded optimizer's order (TrainingOptimizer's);
  // `params`: the same in registration order with their index into `groups`; `groups` as the
  // unsharded optimizer would get them (their lr and weight decay).
  ZeroOptimizer(TrainableParams trainable, std::unique_ptr<LossScaler> scaler, int64_t stage,
                Collective& collective, std::vector<at::Tensor> params,
                std::vector<int64_t> group_of, std::vector<ParamGroup> groups,
                std::shared_ptr<const OptimizerOptions> optimizer, double bucket_cap_mb,
                bool overlap);
  ~ZeroOptimizer() override;

  // Drops the gradients of the parameters and of the parts.
  void zero_grad() override;
  // Gathered from every rank's parts.
  std::optional<PthValue> state() override;
  // Takes this rank's parts of the whole state.
  void load_state(const PthValue& state) override;
  std::string describe() const override;

  // Bytes of optimizer state and of gradients this rank holds now.
  int64_t optimizer_state_bytes() const;
  int64_t gradient_bytes() const;

 protected:
  void before_backward(const at::Tensor& loss, bool last) override;
  SyncedGradients finish_synchronization() override;
  // Updates this rank's parts, then gathers every rank's parts into the parameters.
  void update() override;
  // The optimizer over this rank's parts.
  torch::optim::Optimizer& param_groups() override { return *parts_optimizer_; }
  const torch::optim::Optimizer& param_groups() const override { return *parts_optimizer_; }

 private:
  void launch_reduce_scatter(size_t bucket);
  std::unique_ptr<torch::optim::Optimizer> whole_optimizer() const;

  int64_t stage_;
  Collective& collective_;
  std::vector<at::Tensor> registered_;  // the parameters in registration order
  std::vector<ParamGroup> groups_;
  std::shared_ptr<const OptimizerOptions> optimizer_options_;
  int64_t bucket_bytes_;
  bool overlap_;
  std::vector<GradientBucket> buckets_;
  std::vector<at::Tensor> parts_;  // this rank's part of each bucket
  std::unique_ptr<torch::optim::Optimizer> parts_optimizer_;
  // Stage 1: the all-reduce of the unsharded run. Stage 2: reduce-scatters.
  std::unique_ptr<AllReduceGradientSync> all_reduce_;
  std::vector<at::Tensor> flat_;
  std::vector<std::unique_ptr<PendingCollective>> pending_;
  std::unique_ptr<BucketReadiness> readiness_;
};

}  // namespace olv2
