#pragma once
// mmdet's `GIoULoss`, a box regression loss of the traffic-element heads.
#include <ATen/core/Tensor.h>

#include <optional>

namespace olv2 {

// mmdet `GIoULoss` (eps 1e-6): 1 - GIoU of aligned xyxy boxes pred [N, 4] and target [N, 4].
// `weight` is [N] or [N, 4] (then averaged over the 4 coordinates, as the original does); when
// every weight is zero the loss is an exact zero that keeps the graph. Reduced as in
// `weight_reduce_loss`, times `loss_weight`.
at::Tensor giou_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor, double loss_weight, double eps = 1e-6);

}  // namespace olv2
