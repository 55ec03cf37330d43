// get_data_info / get_ann_info of the original dataset: a Frame becomes the
// pipeline input.
#include "olv2/data/pipeline_data.h"

#include <cmath>

#include "olv2/data/camera_matrices.h"
#include "olv2/util/error.h"
#include "olv2/util/math_constants.h"

namespace olv2 {
namespace {

Matrix3d inverse3(const Matrix3d& m) {
  const double c00 = m[4] * m[8] - m[5] * m[7];
  const double c01 = m[5] * m[6] - m[3] * m[8];
  const double c02 = m[3] * m[7] - m[4] * m[6];
  const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  const double inv = 1.0 / det;
  return {c00 * inv, (m[2] * m[7] - m[1] * m[8]) * inv, (m[1] * m[5] - m[2] * m[4]) * inv,
          c01 * inv, (m[0] * m[8] - m[2] * m[6]) * inv, (m[2] * m[3] - m[0] * m[5]) * inv,
          c02 * inv, (m[1] * m[6] - m[0] * m[7]) * inv, (m[0] * m[4] - m[1] * m[3]) * inv};
}

// pyquaternion's Quaternion._from_matrix: a trace method on m = R^T, with its
// branch choice (which decides the sign of w). Returns (w, x, y, z).
std::array<double, 4> quaternion_from_matrix(const Matrix3d& R) {
  auto m = [&R](int i, int j) { return R[j * 3 + i]; };  // m = R^T
  double t = 0.0;
  std::array<double, 4> q{};
  if (m(2, 2) < 0) {
    if (m(0, 0) > m(1, 1)) {
      t = 1 + m(0, 0) - m(1, 1) - m(2, 2);
      q = {m(1, 2) - m(2, 1), t, m(0, 1) + m(1, 0), m(2, 0) + m(0, 2)};
    } else {
      t = 1 - m(0, 0) + m(1, 1) - m(2, 2);
      q = {m(2, 0) - m(0, 2), m(0, 1) + m(1, 0), t, m(1, 2) + m(2, 1)};
    }
  } else {
    if (m(0, 0) < -m(1, 1)) {
      t = 1 - m(0, 0) - m(1, 1) + m(2, 2);
      q = {m(0, 1) - m(1, 0), m(2, 0) + m(0, 2), m(1, 2) + m(2, 1), t};
    } else {
      t = 1 + m(0, 0) + m(1, 1) + m(2, 2);
      q = {t, m(1, 2) - m(2, 1), m(2, 0) - m(0, 2), m(0, 1) - m(1, 0)};
    }
  }
  const double scale = 0.5 / std::sqrt(t);
  for (double& v : q) v *= scale;
  return q;
}

// pyquaternion's yaw (normalising first unless already unit within 1e-14).
double pyquaternion_yaw(std::array<double, 4> q) {
  const double sum_sq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (std::abs(1.0 - sum_sq) >= 1e-14) {
    const double norm = std::sqrt(sum_sq);
    if (norm > 0)
      for (double& v : q) v /= norm;
  }
  return std::atan2(2 * (q[0] * q[3] - q[1] * q[2]), 1 - 2 * (q[2] * q[2] + q[3] * q[3]));
}

}  // namespace

std::array<double, 18> compute_can_bus(const Pose& pose) {
  std::array<double, 18> can_bus{};
  for (int i = 0; i < 3; ++i) can_bus[i] = pose.translation[i];
  const std::array<double, 4> q = quaternion_from_matrix(pose.rotation);
  // Original behaviour: a pyquaternion assigned into can_bus[3:7] becomes
  // float(q) = w, four times (spec §1.4).
  for (int i = 3; i < 7; ++i) can_bus[i] = q[0];
  double angle = pyquaternion_yaw(q) / kPi * 180;
  if (angle < 0) angle += 360;
  can_bus[16] = angle / 180 * kPi;
  can_bus[17] = angle;
  return can_bus;
}

std::array<std::vector<float>, 3> ped_crossing_as_lane_segment(const Area& crossing) {
  const std::vector<float>& p = crossing.points;
  const auto point = [&](int i) {
    return std::vector<float>{p[3 * i], p[3 * i + 1], p[3 * i + 2]};
  };
  // Original behaviour: numpy computes the heading in the points' dtype, float32.
  const float dx = p[3] - p[0];
  const float dy = p[4] - p[1];
  const float heading = std::atan2(dy, dx) * (180.0f / static_cast<float>(kPi));
  std::vector<float> left, right;
  for (const auto& [l, r] : heading<-45.0f || heading> 135.0f
                                ? std::vector<std::pair<int, int>>{{2, 1}, {3, 0}}
                                : std::vector<std::pair<int, int>>{{0, 3}, {1, 2}}) {
    const std::vector<float> a = point(l), b = point(r);
    left.insert(left.end(), a.begin(), a.end());
    right.insert(right.end(), b.begin(), b.end());
  }
  std::vector<float> centerline;
  for (size_t i = 0; i < left.size(); ++i) centerline.push_back((left[i] + right[i]) / 2.0f);
  return {centerline, left, right};
}

PipelineData make_pipeline_data(const Frame& frame, const std::string& data_root) {
  PipelineData data;
  data.frame_name = frame.split + "/" + frame.segment_id + "/info/" + frame.timestamp +
                    (frame.format == FrameFormat::kLaneSegment ? "-ls.json" : ".json");
  data.scene_token = frame.segment_id;
  data.sample_idx = frame.timestamp;
  data.data_root = data_root;
  const std::string front = subset_camera_names(frame.subset).front();
  if (frame.cameras.empty() || frame.cameras[0].name != front) {
    throw input_error("frame " + data.frame_name + ": the first camera of `sensor` must be " +
                      front + ", got " +
                      (frame.cameras.empty() ? std::string("none") : frame.cameras[0].name));
  }
  for (const CameraInfo& camera : frame.cameras) {
    const Matrix3d R_inv = inverse3(camera.R);
    const Matrix4d K4 = embed_intrinsic(camera.K);
    const Matrix4d e2c = ego_to_camera(R_inv, camera.t);
    data.camera_names.push_back(camera.name);
    data.img_paths.push_back(data_root + "/" + camera.image_path);
    data.lidar2cam.push_back(e2c);
    data.cam_intrinsic.push_back(K4);
    data.lidar2img.push_back(multiply4(K4, e2c));
    data.rots.push_back(R_inv);
    data.trans.push_back({-camera.t[0], -camera.t[1], -camera.t[2]});
    data.cam2imgs.push_back(camera.K);
  }
  data.can_bus = compute_can_bus(frame.pose);

  data.annotated = frame.has_annotation;
  data.frame_format = frame.format;
  for (const TrafficElement& element : frame.traffic_elements) {
    data.gt_te.insert(data.gt_te.end(), {element.x1, element.y1, element.x2, element.y2});
    data.gt_te_labels.push_back(element.attribute);
  }
  if (frame.format == FrameFormat::kLaneSegment) {
    for (const LaneSegment& segment : frame.lane_segments) {
      data.gt_lane_segment_lines.push_back(
          {segment.centerline, segment.left_laneline, segment.right_laneline});
      data.gt_lane_labels.push_back(0);
      data.gt_lane_left_type.push_back(segment.left_laneline_type);
      data.gt_lane_right_type.push_back(segment.right_laneline_type);
    }
    data.gt_areas = frame.areas;
    data.num_lanes = static_cast<int64_t>(data.gt_lane_segment_lines.size());
    data.gt_topology_lclc = frame.topology_lsls;
    data.gt_topology_lcte = frame.topology_lste;
    return data;
  }
  const size_t n = frame.lanes.size();
  data.num_lanes = static_cast<int64_t>(n);
  data.lane_points = n == 0 ? 0 : frame.lanes[0].num_points();
  data.gt_lc.reserve(n * data.lane_points * 3);
  for (const LaneCenterline& lane : frame.lanes)
    data.gt_lc.insert(data.gt_lc.end(), lane.points.begin(), lane.points.end());
  data.gt_topology_lclc = frame.topology_lclc;
  data.gt_topology_lcte = frame.topology_lcte;
  return data;
}

}  // namespace olv2
