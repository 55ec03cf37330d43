#pragma once
// LaneSegNet's `GenerateLaneSegmentMask` transform: each lane segment's instance mask on the BEV
// grid.
#include <array>
#include <cstdint>
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// GenerateLaneSegmentMask(points_num, map_size, bev_h, bev_w): the polygon of each
// parameterized segment (its left boundary, the right one reversed, the left's first point
// again) filled as OpenCV's fillPoly fills it on a bev_h x bev_w grid over map_size
// [x_min, y_min, x_max, y_max] (metres; [-50, -25, 50, 25], not the model's pc_range): point
// (x, y) is column int32(x * bev_w / (x_max - x_min) + bev_w // 2), row
// int32(y * bev_h / (y_max - y_min) + bev_h // 2), truncated toward zero.
class GenerateLaneSegmentMask : public Transform {
 public:
  GenerateLaneSegmentMask(int64_t points_num, std::array<double, 4> map_size, int64_t bev_h,
                          int64_t bev_w)
      : points_num_(points_num), map_size_(map_size), bev_h_(bev_h), bev_w_(bev_w) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "GenerateLaneSegmentMask"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  int64_t points_num_;
  std::array<double, 4> map_size_;
  int64_t bev_h_;
  int64_t bev_w_;
};

}  // namespace olv2
