#include "olv2/data/synthetic/frame_json.h"

#include <nlohmann/json.hpp>

namespace olv2::synthetic {

namespace {

using Json = nlohmann::ordered_json;

template <int Rows, int Cols>
Json matrix_json(const cv::Matx<double, Rows, Cols>& matrix) {
  Json rows = Json::array();
  for (int row = 0; row < Rows; ++row) {
    Json values = Json::array();
    for (int col = 0; col < Cols; ++col) {
      values.push_back(matrix(row, col));
    }
    rows.push_back(values);
  }
  return rows;
}

Json vector_json(const cv::Vec3d& vector) { return Json::array({vector[0], vector[1], vector[2]}); }

Json sensor_json(const SyntheticFrameId& id, const std::vector<SyntheticCamera>& cameras) {
  Json sensor = Json::object();
  for (const SyntheticCamera& camera : cameras) {
    Json record = Json::object();
    record["image_path"] = synthetic_image_path(id, camera.name);
    record["extrinsic"] = {{"rotation", matrix_json(camera.R)},
                           {"translation", vector_json(camera.t)}};
    record["intrinsic"] = {{"K", matrix_json(camera.K)},
                           {"distortion", vector_json(camera.distortion)}};
    sensor[camera.name] = record;
  }
  return sensor;
}

Json points_json(const std::vector<cv::Vec3d>& points) {
  Json list = Json::array();
  for (const cv::Vec3d& point : points) list.push_back(vector_json(point));
  return list;
}

Json traffic_elements_json(const SyntheticScene& scene) {
  Json elements = Json::array();
  for (const SyntheticTrafficElement& element : scene.traffic_elements) {
    elements.push_back({{"id", element.id},
                        {"category", element.category},
                        {"attribute", element.attribute},
                        {"points", {{element.x1, element.y1}, {element.x2, element.y2}}}});
  }
  return elements;
}

// The v2.x annotation, in the key order of the devkit's data README.
Json lane_segment_annotation_json(const SyntheticScene& scene) {
  Json segments = Json::array();
  for (const SyntheticLaneSegment& segment : scene.lane_segments) {
    segments.push_back({{"id", segment.id},
                        {"centerline", points_json(segment.centerline)},
                        {"left_laneline", points_json(segment.left_laneline)},
                        {"left_laneline_type", segment.left_laneline_type},
                        {"right_laneline", points_json(segment.right_laneline)},
                        {"right_laneline_type", segment.right_laneline_type},
                        {"is_intersection_or_connector", segment.is_intersection_or_connector}});
  }
  Json areas = Json::array();
  for (const SyntheticArea& area : scene.areas) {
    areas.push_back(
        {{"id", area.id}, {"category", area.category}, {"points", points_json(area.points)}});
  }
  Json annotation = Json::object();
  annotation["lane_segment"] = segments;
  annotation["traffic_element"] = traffic_elements_json(scene);
  annotation["area"] = areas;
  annotation["topology_lsls"] = scene.topology_lclc;
  annotation["topology_lste"] = scene.topology_lcte;
  return annotation;
}

Json annotation_json(const SyntheticScene& scene) {
  Json lanes = Json::array();
  for (const SyntheticLane& lane : scene.lanes) {
    lanes.push_back({{"id", lane.id},
                     {"points", points_json(lane.points)},
                     {"is_intersection_or_connector", lane.is_connector}});
  }
  Json annotation = Json::object();
  annotation["lane_centerline"] = lanes;
  annotation["traffic_element"] = traffic_elements_json(scene);
  annotation["topology_lclc"] = scene.topology_lclc;
  annotation["topology_lcte"] = scene.topology_lcte;
  return annotation;
}

}  // namespace

std::string synthetic_image_path(const SyntheticFrameId& id, const std::string& camera_name) {
  return id.split + "/" + id.segment_id + "/image/" + camera_name + "/" +
         std::to_string(id.timestamp) + ".jpg";
}

std::string synthetic_frame_json(const SyntheticFrameId& id,
                                 const std::vector<SyntheticCamera>& cameras,
                                 const SyntheticScene& scene, bool annotated, FrameFormat format) {
  const bool lane_segments = format == FrameFormat::kLaneSegment;
  Json frame = Json::object();
  frame["version"] = lane_segments ? "v2.0" : "v1.0";
  frame["segment_id"] = id.segment_id;
  frame["meta_data"] = {{"source", "synthetic"}, {"source_id", "synthetic-" + id.segment_id}};
  frame["timestamp"] = id.timestamp;
  frame["sensor"] = sensor_json(id, cameras);
  frame["pose"] = {{"rotation", matrix_json(scene.pose_rotation)},
                   {"translation", vector_json(scene.pose_translation)}};
  if (annotated) {
    frame["annotation"] =
        lane_segments ? lane_segment_annotation_json(scene) : annotation_json(scene);
  }
  return frame.dump();
}

}  // namespace olv2::synthetic
