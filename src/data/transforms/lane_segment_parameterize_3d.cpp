#include "olv2/data/transforms/lane_segment_parameterize_3d.h"

#include <array>
#include <vector>

#include "olv2/data/polyline_resample.h"
#include "olv2/data/transforms/lane_parameterize_3d.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> LaneSegmentParameterize3D::from_config(const ConfigNode& node) {
  return std::make_shared<LaneSegmentParameterize3D>(fix_pts_interp_points(node));
}

Schema LaneSegmentParameterize3D::schema() { return fix_pts_interp_schema(); }

void LaneSegmentParameterize3D::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  if (data.frame_format != FrameFormat::kLaneSegment) {
    throw input_error("frame " + data.frame_name +
                      ": LaneSegmentParameterize3D needs lane segments (v2.x frames)");
  }
  if (data.gt_lc_parameterized) {
    throw input_error("pipeline: LaneSegmentParameterize3D runs once, on the annotated lines");
  }
  if (!data.annotated) return;
  const auto resampled = [&](const std::vector<float>& line) {
    std::vector<std::array<double, 3>> polyline;
    for (size_t k = 0; k + 2 < line.size(); k += 3)
      polyline.push_back({line[k], line[k + 1], line[k + 2]});
    return resample_by_length(polyline, n_points_);
  };
  std::vector<float> out;
  out.reserve(data.gt_lane_segment_lines.size() * static_cast<size_t>(9 * n_points_));
  for (const std::array<std::vector<float>, 3>& lines : data.gt_lane_segment_lines) {
    const std::vector<std::array<double, 3>> left = resampled(lines[1]);
    const std::vector<std::array<double, 3>> right = resampled(lines[2]);
    for (size_t k = 0; k < left.size(); ++k) {
      for (size_t d = 0; d < 3; ++d)
        out.push_back(static_cast<float>((left[k][d] + right[k][d]) / 2.0));
    }
    for (const auto* line : {&left, &right}) {
      for (const std::array<double, 3>& point : *line) {
        for (const double v : point) out.push_back(static_cast<float>(v));
      }
    }
  }
  data.gt_lc = std::move(out);
  data.num_lanes = static_cast<int64_t>(data.gt_lane_segment_lines.size());
  data.lane_points = 3 * n_points_;
  data.gt_lc_parameterized = true;
}

}  // namespace olv2
