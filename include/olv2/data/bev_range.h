#pragma once
// The ground area a model predicts lanes in, and lane points normalised over it.
#include <ATen/core/Tensor.h>

#include <array>

namespace olv2 {

// x_min, y_min, z_min, x_max, y_max, z_max in metres.
using BevRange = std::array<double, 6>;

// Control points [..., 3k] in metres -> each axis mapped to [0, 1] over `range` (values outside
// the range map outside [0, 1]).
at::Tensor normalize_lane_points(const at::Tensor& points, const BevRange& range);

// The inverse of `normalize_lane_points`, then clamped to the range (the original decoding).
at::Tensor denormalize_lane_points(const at::Tensor& normalized, const BevRange& range);

}  // namespace olv2
