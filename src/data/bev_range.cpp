#include "olv2/data/bev_range.h"

#include <ATen/ATen.h>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

void check_points(const at::Tensor& points) {
  if (points.dim() < 1 || points.size(-1) % 3 != 0) {
    throw runtime_error("lane control points: last dimension must be a multiple of 3 (x, y, z)");
  }
}

}  // namespace

at::Tensor normalize_lane_points(const at::Tensor& points, const BevRange& range) {
  check_points(points);
  at::Tensor out = at::zeros_like(points);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const auto coords = points.slice(-1, axis, c10::nullopt, 3);
    out.slice(-1, axis, c10::nullopt, 3)
        .copy_((coords - range[axis]) / (range[axis + 3] - range[axis]));
  }
  return out;
}

at::Tensor denormalize_lane_points(const at::Tensor& normalized, const BevRange& range) {
  check_points(normalized);
  at::Tensor out = at::empty_like(normalized);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const auto coords = normalized.slice(-1, axis, c10::nullopt, 3);
    out.slice(-1, axis, c10::nullopt, 3)
        .copy_((coords * (range[axis + 3] - range[axis]) + range[axis])
                   .clamp(range[axis], range[axis + 3]));
  }
  return out;
}

}  // namespace olv2
