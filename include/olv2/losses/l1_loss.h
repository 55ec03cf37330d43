#pragma once
// mmdet's `L1Loss`, the regression loss of lane control points and boxes.
#include <ATen/core/Tensor.h>

#include <optional>

namespace olv2 {

// mmdet `L1Loss`: |pred - target| summed over every element (not a per-dimension mean),
// weighted and reduced as in `weight_reduce_loss`, times `loss_weight`.
at::Tensor l1_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                   std::optional<double> avg_factor, double loss_weight);

}  // namespace olv2
