#include "olv2/evaluation/ground_truth.h"

#include <algorithm>
#include <thread>

#include "olv2/data/frame.h"
#include "olv2/data/frame_reader.h"
#include "olv2/util/error.h"

namespace olv2 {

FrameGroundTruth ground_truth_from_frame(const Frame& frame) {
  if (!frame.has_annotation) {
    throw input_error("frame " + frame.split + "/" + frame.segment_id + "/" + frame.timestamp +
                      ": no `annotation`; evaluation needs ground truth");
  }
  FrameGroundTruth gt;
  gt.frame = {frame.split, frame.segment_id, frame.timestamp};
  gt.lanes.reserve(frame.lanes.size());
  for (const LaneCenterline& lane : frame.lanes) {
    Polyline points(static_cast<std::size_t>(lane.num_points()));
    for (std::size_t k = 0; k < points.size(); ++k) {
      points[k] = {lane.points[3 * k], lane.points[3 * k + 1], lane.points[3 * k + 2]};
    }
    gt.lanes.push_back(std::move(points));
  }
  for (const TrafficElement& element : frame.traffic_elements) {
    gt.traffic_element_boxes.push_back({element.x1, element.y1, element.x2, element.y2});
    gt.traffic_element_attributes.push_back(static_cast<int>(element.attribute));
  }
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
  const std::size_t num_workers =
      std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), 8));
  std::vector<std::exception_ptr> errors(num_workers);
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < num_workers; ++w) {
    workers.emplace_back([&, w] {
      try {
        for (std::size_t i = w; i < frames.size(); i += num_workers) {
          frames[i] = ground_truth_from_frame(index.load(i));
        }
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return frames;
}

}  // namespace olv2
