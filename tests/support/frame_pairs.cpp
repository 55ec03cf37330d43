#include "support/frame_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/test_paths.h"

namespace olv2::test {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::map<std::pair<size_t, size_t>, std::vector<FrameRef>> frames_by_counts(
    const fs::path& dataset) {
  std::ifstream collection(dataset / "data_dict_synthetic.json");
  const Json root = Json::parse(collection);
  std::map<std::pair<size_t, size_t>, std::vector<FrameRef>> groups;
  for (const auto& [segment, files] : root.at("train").items()) {
    for (const auto& file : files) {
      const std::string name = file.get<std::string>();
      std::ifstream info(dataset / "train" / segment / "info" / name);
      const Json frame = Json::parse(info);
      const auto& annotation = frame.at("annotation");
      groups[{annotation.at("lane_centerline").size(), annotation.at("traffic_element").size()}]
          .push_back({segment, name});
    }
  }
  return groups;
}

void write_collection(const fs::path& file, const std::vector<FrameRef>& frames) {
  Json train = Json::object();
  for (const FrameRef& frame : frames) train[frame.segment].push_back(frame.file);
  fs::create_directories(file.parent_path());
  std::ofstream(file) << Json{{"train", train}}.dump();
}

double sum_order_tolerance(double value) { return std::max(1e-5 + 1e-9, 1e-5 * std::abs(value)); }

fs::path equal_count_meta_root(const fs::path& dataset, size_t count) {
  const auto groups = frames_by_counts(dataset);
  const std::vector<FrameRef>* chosen = nullptr;
  for (const auto& [counts, frames] : groups) {
    if (frames.size() >= count && counts.second > 0 &&
        (chosen == nullptr || frames.size() > chosen->size()))
      chosen = &frames;
  }
  EXPECT_NE(chosen, nullptr) << "the synthetic set has no " << count << " frames with equal counts";
  const fs::path meta_root = scratch_dir("equal_meta_" + std::to_string(count));
  if (chosen != nullptr) {
    write_collection(meta_root / "pair.json",
                     std::vector<FrameRef>(chosen->begin(), chosen->begin() + count));
  }
  return meta_root;
}

}  // namespace olv2::test
