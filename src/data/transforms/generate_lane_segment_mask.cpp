#include "olv2/data/transforms/generate_lane_segment_mask.h"

#include <algorithm>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> GenerateLaneSegmentMask::from_config(const ConfigNode& node) {
  const int64_t points_num = node.at("points_num").as_int();
  std::array<double, 4> map_size = {-50.0, -25.0, 50.0, 25.0};
  if (const ConfigNode* size = node.find("map_size")) map_size = fixed_numbers<4>(*size);
  if (map_size[2] <= map_size[0] || map_size[3] <= map_size[1]) {
    throw input_error(node.at("map_size").where() +
                      ": expected [x_min, y_min, x_max, y_max] with x_max > x_min, y_max > y_min");
  }
  return std::make_shared<GenerateLaneSegmentMask>(
      points_num, map_size, node.get<int64_t>("bev_h", 100), node.get<int64_t>("bev_w", 200));
}

Schema GenerateLaneSegmentMask::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .required("points_num", Schema::integer().range(2, 1000))
      .optional("map_size", numbers_schema())
      .optional("bev_h", Schema::integer().range(1, 100000))
      .optional("bev_w", Schema::integer().range(1, 100000));
}

void GenerateLaneSegmentMask::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  if (!data.annotated) return;
  if (!data.gt_lc_parameterized || data.lane_points != 3 * points_num_) {
    throw input_error(
        "pipeline: GenerateLaneSegmentMask needs the lane segments parameterized "
        "to points_num " +
        std::to_string(points_num_) +
        " points a line (LaneSegmentParameterize3D before it, with the same "
        "n_points)");
  }
  // In float64, as numpy multiplies the float32 points by the float64 scale.
  const double scale_x = static_cast<double>(bev_w_) / (map_size_[2] - map_size_[0]);
  const double scale_y = static_cast<double>(bev_h_) / (map_size_[3] - map_size_[1]);
  const double origin_x = static_cast<double>(bev_w_ / 2);
  const double origin_y = static_cast<double>(bev_h_ / 2);
  const size_t cells = static_cast<size_t>(bev_h_ * bev_w_);
  data.gt_instance_masks.assign(static_cast<size_t>(data.num_lanes) * cells, 0);
  for (int64_t lane = 0; lane < data.num_lanes; ++lane) {
    const float* lines = data.gt_lc.data() + lane * 9 * points_num_;
    const float* left = lines + 3 * points_num_;
    const float* right = lines + 6 * points_num_;
    std::vector<cv::Point> polygon;
    // int32 truncates toward zero; coordinates beyond a million pixels are clamped, which
    // fills the same cells.
    const auto pixel = [](double v) { return static_cast<int>(std::clamp(v, -1e6, 1e6)); };
    const auto add = [&](const float* point) {
      polygon.emplace_back(pixel(static_cast<double>(point[0]) * scale_x + origin_x),
                           pixel(static_cast<double>(point[1]) * scale_y + origin_y));
    };
    for (int64_t k = 0; k < points_num_; ++k) add(left + 3 * k);
    for (int64_t k = points_num_ - 1; k >= 0; --k) add(right + 3 * k);
    add(left);
    cv::Mat mask(static_cast<int>(bev_h_), static_cast<int>(bev_w_), CV_8UC1,
                 data.gt_instance_masks.data() + static_cast<size_t>(lane) * cells);
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{polygon}, cv::Scalar(1));
  }
  data.mask_h = bev_h_;
  data.mask_w = bev_w_;
}

}  // namespace olv2
