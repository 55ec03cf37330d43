#pragma once
// The annotation of a frame as the official evaluator sees it, and loading it for a whole split.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/data/frame_reader.h"
#include "olv2/evaluation/frechet.h"
#include "olv2/evaluation/iou_distance.h"

namespace olv2 {

struct Frame;

// The annotation of one frame as the official evaluator sees it: float32 coordinates, int8
// topology. v1.x: lane centerlines already subsampled (every 20th point outside train). v2.x
// (`format` kLaneSegment): `lanes` are the lane segments' centerlines, with their boundaries
// beside them, and the topology matrices are `topology_lsls` and `topology_lste`; lines at 10
// points and areas at 20, as the devkit's `lanesegment` collection resamples them.
struct FrameGroundTruth {
  FrameId frame;
  FrameFormat format = FrameFormat::kLaneCenterline;
  std::vector<Polyline> lanes;
  std::vector<Polyline> left_lanelines;   // v2.x, one per lane
  std::vector<Polyline> right_lanelines;  // v2.x, one per lane
  std::vector<Polyline> areas;            // v2.x
  std::vector<int> area_categories;       // v2.x, one per area: 1 crossing, 2 road boundary
  // v2.x, LaneSegNet's own evaluation (its `format_openlanev2_gt`): the pedestrian crossings only,
  // each as its first edge (corners 0, 1) then its third (corners 2, 3), both resampled to 10
  // points. Present when the frames were read with their areas as annotated (LaneSegNet's
  // collection), which the rule needs.
  std::optional<std::vector<Polyline>> lanesegnet_crossings;
  std::vector<Box> traffic_element_boxes;
  std::vector<int> traffic_element_attributes;
  std::vector<std::int8_t> topology_lclc;  // [N * N], row-major
  std::vector<std::int8_t> topology_lcte;  // [N * M], row-major

  std::size_t num_lanes() const { return lanes.size(); }
  std::size_t num_traffic_elements() const { return traffic_element_boxes.size(); }
};

// The evaluation view of a frame read by the data layer (its point interval already applied).
// v2.x frames read as annotated (`kind` kLaneSegNet) get their areas resampled to 20 points as the
// devkit's collection does, and `lanesegnet_crossings`.
FrameGroundTruth ground_truth_from_frame(const Frame& frame,
                                         CollectionKind kind = CollectionKind::kCenterline);

// Ground truth of every frame of `split` in a collection, in collection order, with the official
// preprocessing (every 20th lane point for every split but train). Reads only the info JSON files.
std::vector<FrameGroundTruth> load_ground_truth(const std::filesystem::path& data_root,
                                                const std::filesystem::path& collection_file,
                                                const std::string& split);

// The same for the frames of `index` (a dataset's: its frame limit and left-out logs included),
// in its order, with its point interval.
std::vector<FrameGroundTruth> load_ground_truth(const FrameIndex& index);

}  // namespace olv2
