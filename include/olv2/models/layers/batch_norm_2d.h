#pragma once
// The BatchNorm of the models, PyTorch's BatchNorm2d or mmcv's SyncBN over the ranks, with its
// `norm_cfg`.
#include <ATen/core/Tensor.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// mmcv's `norm_cfg` for a BatchNorm layer: `{type: BN}` or `{type: SyncBN}`, `requires_grad`.
struct BatchNormOptions {
  bool synchronized = false;  // SyncBN: batch statistics over every rank of the run
  bool requires_grad = true;  // false: weight and bias frozen

  static Schema schema();
  static BatchNormOptions from_config(const ConfigNode& section);
};

// BatchNorm2d (eps 1e-5, momentum 0.1, affine, running statistics) with the parameters and
// buffers of PyTorch's, in its order (weight, bias, running_mean, running_var,
// num_batches_tracked), which mmcv's BN and SyncBN share, and its arithmetic. As SyncBN in
// training mode with several ranks (torch.nn.SyncBatchNorm): the batch mean and variance are
// taken over every rank's batch (the per-channel sums all-reduced over the process collective),
// their gradients flow back across the ranks (the all-reduce's backward all-reduces the incoming
// gradients), and the running statistics get the unbiased variance over the total count. Every
// rank must run its SyncBN layers in the same order. In eval mode or in one process it is
// BatchNorm2d.
class BatchNorm2dLayerImpl : public torch::nn::Cloneable<BatchNorm2dLayerImpl> {
 public:
  static constexpr double kEps = 1e-5;
  static constexpr double kMomentum = 0.1;

  BatchNorm2dLayerImpl(int64_t channels, const BatchNormOptions& options);
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

  at::Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  at::Tensor synchronized_forward(const at::Tensor& x);

  int64_t channels_;
  BatchNormOptions options_;
};
TORCH_MODULE(BatchNorm2dLayer);

}  // namespace olv2
