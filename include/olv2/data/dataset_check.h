#pragma once
// Checking a dataset split before training: every frame and image read as training would, with a
// report of what was found.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "olv2/data/frame_reader.h"

namespace olv2 {

struct DatasetCheckOptions {
  bool decode = false;           // decode every image (otherwise headers and end markers only)
  size_t examples_per_kind = 5;  // problem messages kept per kind
};

// What walking one split of a dataset found.
struct DatasetCheckReport {
  std::string split;
  int64_t frames = 0;
  int64_t annotated_frames = 0;
  FrameFormat format = FrameFormat::kLaneCenterline;
  int64_t lanes = 0;          // centerlines of v1.x frames
  int64_t lane_segments = 0;  // v2.x
  int64_t pedestrian_crossings = 0;
  int64_t road_boundaries = 0;
  int64_t traffic_elements = 0;
  int64_t images = 0;
  std::map<int64_t, int64_t> cameras_per_frame;                       // camera count -> frames
  std::map<std::string, std::map<std::string, int64_t>> image_sizes;  // camera -> "WxH" -> images
  std::map<std::string, int64_t> problems;                            // kind -> count
  std::map<std::string, std::vector<std::string>> examples;           // kind -> first messages
  double seconds = 0;

  int64_t problem_count() const;
  void add_problem(const std::string& kind, const std::string& message, size_t keep);
};

// Reads every frame of `index` the way training does (the same reader and checks) and every
// image's header and end marker (or the whole image with options.decode). `progress`, when
// given, is called after each frame with (done, total).
DatasetCheckReport check_dataset(const FrameIndex& index, const DatasetCheckOptions& options,
                                 const std::function<void(size_t, size_t)>& progress = {});

// A human-readable summary of the report (several lines, no trailing newline).
std::string format_check_report(const DatasetCheckReport& report);

}  // namespace olv2
