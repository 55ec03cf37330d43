#include "olv2/evaluation/ground_truth.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "olv2/data/frame.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/polyline_resample.h"
#include "olv2/util/error.h"
#include "olv2/util/parallel_for.h"

namespace olv2 {

namespace {

// Row-major n x 3 floats as a polyline.
Polyline polyline_of(const std::vector<float>& points) {
  Polyline polyline(points.size() / 3);
  for (std::size_t k = 0; k < polyline.size(); ++k) {
    polyline[k] = {points[3 * k], points[3 * k + 1], points[3 * k + 2]};
  }
  return polyline;
}

// `count` points at equal steps of the length of `corners[first..last]`, stored as float32.
Polyline resampled(const std::vector<float>& points, std::size_t first, std::size_t last,
                   int64_t count) {
  std::vector<std::array<double, 3>> corners;
  for (std::size_t k = first; k <= last; ++k) {
    corners.push_back({points[3 * k], points[3 * k + 1], points[3 * k + 2]});
  }
  Polyline out;
  for (const auto& p : resample_by_length(corners, count)) {
    out.push_back({static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])});
  }
  return out;
}

constexpr int64_t kAreaPoints = 20;          // the devkit's lanesegment collection
constexpr int64_t kCrossingEdgePoints = 10;  // LaneSegNet's format_openlanev2_gt

void add_lane_segments(const Frame& frame, CollectionKind kind, FrameGroundTruth& gt) {
  for (const LaneSegment& segment : frame.lane_segments) {
    gt.lanes.push_back(polyline_of(segment.centerline));
    gt.left_lanelines.push_back(polyline_of(segment.left_laneline));
    gt.right_lanelines.push_back(polyline_of(segment.right_laneline));
  }
  const bool as_annotated = kind == CollectionKind::kLaneSegNet;
  if (as_annotated) gt.lanesegnet_crossings.emplace();
  for (const Area& area : frame.areas) {
    const std::size_t n = static_cast<std::size_t>(area.num_points());
    gt.areas.push_back(as_annotated ? resampled(area.points, 0, n - 1, kAreaPoints)
                                    : polyline_of(area.points));
    gt.area_categories.push_back(static_cast<int>(area.category));
    if (!as_annotated || area.category != kPedestrianCrossing) continue;
    if (n < 4) {
      throw input_error("frame " + frame.split + "/" + frame.segment_id + "/" + frame.timestamp +
                        ": area id " + std::to_string(area.id) + " is a pedestrian crossing of " +
                        std::to_string(n) +
                        " points; LaneSegNet's evaluation reads its corners 0 to 3");
    }
    Polyline crossing = resampled(area.points, 0, 1, kCrossingEdgePoints);
    const Polyline third_edge = resampled(area.points, 2, 3, kCrossingEdgePoints);
    crossing.insert(crossing.end(), third_edge.begin(), third_edge.end());
    gt.lanesegnet_crossings->push_back(std::move(crossing));
  }
  gt.topology_lclc = frame.topology_lsls;
  gt.topology_lcte = frame.topology_lste;
}

}  // namespace

FrameGroundTruth ground_truth_from_frame(const Frame& frame, CollectionKind kind) {
  if (!frame.has_annotation) {
    throw input_error("frame " + frame.split + "/" + frame.segment_id + "/" + frame.timestamp +
                      ": no `annotation`; evaluation needs ground truth");
  }
  FrameGroundTruth gt;
  gt.frame = {frame.split, frame.segment_id, frame.timestamp};
  gt.format = frame.format;
  for (const TrafficElement& element : frame.traffic_elements) {
    gt.traffic_element_boxes.push_back({element.x1, element.y1, element.x2, element.y2});
    gt.traffic_element_attributes.push_back(static_cast<int>(element.attribute));
  }
  if (frame.format == FrameFormat::kLaneSegment) {
    add_lane_segments(frame, kind, gt);
    return gt;
  }
  gt.lanes.reserve(frame.lanes.size());
  for (const LaneCenterline& lane : frame.lanes) gt.lanes.push_back(polyline_of(lane.points));
  gt.topology_lclc = frame.topology_lclc;
  gt.topology_lcte = frame.topology_lcte;
  return gt;
}

std::vector<FrameGroundTruth> load_ground_truth(const std::filesystem::path& data_root,
                                                const std::filesystem::path& collection_file,
                                                const std::string& split) {
  return load_ground_truth(FrameIndex(data_root, collection_file, split));
}

std::vector<FrameGroundTruth> load_ground_truth(const FrameIndex& index) {
  std::vector<FrameGroundTruth> frames(index.size());
  // Parsing the info files dominates; frames are independent, so split them over the cores.
  parallel_for(frames.size(), 8, [&](std::size_t i) {
    frames[i] = ground_truth_from_frame(index.load(i), index.options().kind);
  });
  return frames;
}

}  // namespace olv2
