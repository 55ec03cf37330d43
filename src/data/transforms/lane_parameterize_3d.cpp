#include "olv2/data/transforms/lane_parameterize_3d.h"

#include <array>
#include <vector>

#include "olv2/data/polyline_resample.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema fix_pts_interp_schema() {
  Schema para = Schema::map();
  para.optional("n_points", Schema::integer());
  return Schema::map()
      .required("type", Schema::string())
      .required("method", Schema::string())
      .optional("method_para", para);
}

int64_t fix_pts_interp_points(const ConfigNode& node) {
  const ConfigNode& method = node.at("method");
  if (method.as_string() != "fix_pts_interp") {
    throw input_error(method.where() + ": unknown method `" + method.as_string() +
                      "` (the original implements fix_pts_interp only)");
  }
  int64_t n_points = 11;
  if (const ConfigNode* para = node.find("method_para"))
    n_points = para->get<int64_t>("n_points", n_points);
  if (n_points < 2) throw input_error(node.at("method_para").where() + ": n_points must be >= 2");
  return n_points;
}

std::shared_ptr<const Transform> LaneParameterize3D::from_config(const ConfigNode& node) {
  return std::make_shared<LaneParameterize3D>(fix_pts_interp_points(node));
}

Schema LaneParameterize3D::schema() { return fix_pts_interp_schema(); }

void LaneParameterize3D::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  if (data.gt_lc_parameterized) {
    throw input_error(
        "pipeline: LaneParameterize3D needs the centerlines as points, but a lane "
        "transform before it has already parameterized them");
  }
  if (!data.annotated) return;
  const int64_t points = data.lane_points;
  std::vector<float> out;
  out.reserve(static_cast<size_t>(data.num_lanes * n_points_ * 3));
  for (int64_t lane = 0; lane < data.num_lanes; ++lane) {
    const float* p = data.gt_lc.data() + lane * points * 3;
    if (n_points_ == 11 && points == 201) {
      for (int64_t k = 0; k < 201; k += 20) out.insert(out.end(), p + k * 3, p + k * 3 + 3);
      continue;
    }
    std::vector<std::array<double, 3>> polyline;
    for (int64_t k = 0; k < points; ++k) polyline.push_back({p[k * 3], p[k * 3 + 1], p[k * 3 + 2]});
    for (const std::array<double, 3>& q : resample_by_length(polyline, n_points_)) {
      for (const double v : q) out.push_back(static_cast<float>(v));
    }
  }
  data.gt_lc = std::move(out);
  data.lane_points = n_points_;
  data.gt_lc_parameterized = true;
}

}  // namespace olv2
