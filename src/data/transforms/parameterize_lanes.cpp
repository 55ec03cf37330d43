#include "olv2/data/transforms/parameterize_lanes.h"

#include "olv2/data/bezier.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> ParameterizeLanes::from_config(const ConfigNode& node) {
  const int n_control = node.at("method_para").at("n_control").as<int>();
  if (n_control < 2)
    throw input_error(node.at("method_para").at("n_control").where() + ": expected >= 2");
  return std::make_shared<ParameterizeLanes>(n_control);
}

Schema ParameterizeLanes::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .required("method", Schema::string().choices({"bezier_Endpointfixed"}))
      .required("method_para", Schema::map().required("n_control", Schema::integer()));
}

void ParameterizeLanes::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  if (data.gt_lc_parameterized) throw input_error("pipeline: CustomParameterizeLane applied twice");
  const int points = static_cast<int>(data.lane_points);
  std::vector<float> out;
  out.reserve(static_cast<size_t>(data.num_lanes) * n_control_ * 3);
  std::vector<double> polyline(static_cast<size_t>(points) * 3);
  for (int64_t lane = 0; lane < data.num_lanes; ++lane) {
    const float* src = data.gt_lc.data() + lane * points * 3;
    for (size_t i = 0; i < polyline.size(); ++i) polyline[i] = src[i];
    std::vector<double> control;
    try {
      control = fit_bezier_endpoint_fixed(polyline, points, 3, n_control_);
    } catch (const Error& e) {
      throw input_error("frame " + data.frame_name + ": lane centerline " + std::to_string(lane) +
                        ": " + e.what());
    }
    for (double v : control) out.push_back(static_cast<float>(v));
  }
  data.gt_lc = std::move(out);
  data.lane_points = n_control_;
  data.gt_lc_parameterized = true;
}

}  // namespace olv2
