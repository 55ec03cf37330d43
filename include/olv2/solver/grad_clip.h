#pragma once
// Gradient clipping by global norm, as torch.nn.utils.clip_grad_norm_, also over gradients sharded
// across ranks.
#include <ATen/core/Tensor.h>

#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/util/collective.h"

namespace olv2 {

// mmcv's `optimizer_config.grad_clip`.
struct GradClipOptions {
  double max_norm = 35.0;
  double norm_type = 2.0;  // any p > 0, or infinity

  // `grad_clip: {max_norm, norm_type}`.
  static Schema schema();
  static GradClipOptions from_config(const ConfigNode& section);
};

// Scales the gradients of `params` in place so that their global p-norm is at
// most max_norm, as torch.nn.utils.clip_grad_norm_: norm of the per-tensor
// norms, coefficient max_norm / (norm + 1e-6) applied only when below 1.
// Parameters without a gradient are skipped. Returns the norm before clipping
// (0 when no parameter has a gradient; inf or nan when a gradient is not
// finite, in which case nothing is scaled).
double clip_grad_norm(const std::vector<at::Tensor>& params, const GradClipOptions& options);

// clip_grad_norm for gradients spread over ranks (ZeRO stage 2): `pieces` are this rank's
// gradient tensors (each at most one parameter's), the norm is taken over every rank's pieces
// (their p-th powers summed in double) and every rank of `ranks` must call this.
double clip_gradient_pieces(const std::vector<at::Tensor>& pieces, const GradClipOptions& options,
                            Collective& ranks);

}  // namespace olv2
