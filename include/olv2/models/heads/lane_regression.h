#pragma once
// Lane points from a lane head's regression: the reference point added to every point, then the
// sigmoid scaled to the BEV range.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "olv2/data/bev_range.h"

namespace olv2 {

// regression [..., K * pts_dim], reference [..., pts_dim] (inverse-sigmoid space) -> points in
// metres [..., K * pts_dim]: (x, y, z) or, with pts_dim 2, (x, y). Float32 even under autocast:
// half precision would be centimetres off at 50 m.
// Points normalised to [0, 1] over `range`, [..., pts_dim] -> metres: each axis times the
// range's extent plus its minimum (x, y, z, or x, y with pts_dim 2).
at::Tensor points_in_range(const at::Tensor& normalized, const BevRange& range);

at::Tensor lanes_from_regression(const at::Tensor& regression, const at::Tensor& reference,
                                 const BevRange& range, int64_t pts_dim);

}  // namespace olv2
