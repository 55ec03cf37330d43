#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace olv2::test {

// One train frame of a synthetic dataset: its segment and info file name.
struct FrameRef {
  std::string segment;
  std::string file;
};

// The train frames of `dataset` grouped by (lane count, traffic-element count): frames of one
// group normalise the DETR losses alike, so batching them differently gives the same numbers.
std::map<std::pair<size_t, size_t>, std::vector<FrameRef>> frames_by_counts(
    const std::filesystem::path& dataset);

// Writes a collection `file` (`<meta_root>/<stem>.json`) whose train split holds `frames`.
void write_collection(const std::filesystem::path& file, const std::vector<FrameRef>& frames);

// The meta_root of a collection `pair.json` of `count` train frames of `dataset` with the same
// lane and traffic-element counts (the largest such group that has traffic elements), written in
// a fresh scratch_dir `equal_meta_<count>`; the test fails when there are no such frames.
std::filesystem::path equal_count_meta_root(const std::filesystem::path& dataset, size_t count);

// Relative 1e-5 (float32 sums in another order), and at least the JSON log's rounding to 5
// decimals (as mmcv's), by which two equal values may differ by 1e-5.
double sum_order_tolerance(double value);

}  // namespace olv2::test
