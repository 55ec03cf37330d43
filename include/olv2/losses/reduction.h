#pragma once
// mmdet's `weight_reduce_loss`: how every loss is weighted and averaged.
#include <ATen/core/Tensor.h>

#include <optional>

namespace olv2 {

// mmdet's `weight_reduce_loss` with reduction "mean": the element-wise `loss` times `weight`
// (broadcast; undefined = no weight), then `sum / (avg_factor + FLT_EPSILON)` when an
// `avg_factor` is given, else the plain mean over all elements.
at::Tensor weight_reduce_loss(const at::Tensor& loss, const at::Tensor& weight,
                              std::optional<double> avg_factor);

}  // namespace olv2
