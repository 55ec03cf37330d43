#pragma once
// The annotation of a frame as the official evaluator sees it, and loading it for a whole split.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/data/frame_reader.h"
#include "olv2/evaluation/frechet.h"
#include "olv2/evaluation/iou_distance.h"

namespace olv2 {

struct Frame;

// The annotation of one frame as the official evaluator sees it: lane points already subsampled
// (every 20th point outside train), float32 coordinates, int8 topology.
struct FrameGroundTruth {
  FrameId frame;
  std::vector<Polyline> lanes;
  std::vector<Box> traffic_element_boxes;
  std::vector<int> traffic_element_attributes;
  std::vector<std::int8_t> topology_lclc;  // [N * N], row-major
  std::vector<std::int8_t> topology_lcte;  // [N * M], row-major

  std::size_t num_lanes() const { return lanes.size(); }
  std::size_t num_traffic_elements() const { return traffic_element_boxes.size(); }
};

// The evaluation view of a frame read by the data layer (its point interval already applied).
FrameGroundTruth ground_truth_from_frame(const Frame& frame);

// Ground truth of every frame of `split` in a collection, in collection order, with the official
// preprocessing (every 20th lane point for every split but train). Reads only the info JSON files.
std::vector<FrameGroundTruth> load_ground_truth(const std::filesystem::path& data_root,
                                                const std::filesystem::path& collection_file,
                                                const std::string& split);

// The same for the frames of `index` (a dataset's: its frame limit and left-out logs included),
// in its order, with its point interval.
std::vector<FrameGroundTruth> load_ground_truth(const FrameIndex& index);

}  // namespace olv2
