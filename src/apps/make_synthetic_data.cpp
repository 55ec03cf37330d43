// make_synthetic_data: writes a small synthetic dataset in the OpenLane-V2 on-disk format
// (subset A or B).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>

#include "cli/command_line.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/util/app_main.h"
#include "olv2/util/elapsed.h"
#include "olv2/util/error.h"

namespace olv2::programs::make_synthetic_data {

int main(int argc, char** argv) {
  olv2::synthetic::SyntheticDataOptions options;
  CLI::App app{
      "Write a synthetic OpenLane-V2 dataset (subset A or B format): collection, frame JSONs and "
      "camera images."};
  std::string out_dir;
  const auto defaulted = [](const std::string& text, const auto& value) {
    std::ostringstream with_default;
    with_default << text << " (default " << value << ")";
    return with_default.str();
  };
  app.add_option("--out-dir", out_dir, "folder to write (the data_root of a config)")->required();
  app.add_option("--frames", options.frames, defaulted("frames in all", options.frames));
  app.add_option("--val-frames", options.val_frames,
                 defaulted("frames of them in the val split", options.val_frames));
  app.add_option(
      "--test-frames", options.test_frames,
      defaulted("frames of an unannotated `test` split, besides --frames", options.test_frames));
  app.add_option(
      "--frames-per-segment", options.frames_per_segment,
      defaulted("consecutive frames of one road layout (a segment)", options.frames_per_segment));
  app.add_option("--seed", options.seed, defaulted("random seed", options.seed));
  app.add_option("--image-scale", options.image_scale,
                 defaulted("image size relative to the real cameras (front 1550x2048, others "
                           "2048x1550)",
                           options.image_scale));
  std::string subset = "A";
  app.add_option("--subset", subset,
                 "A: the 7 Argoverse 2 cameras; B: the 6 nuScenes cameras (1600x900) (default A)")
      ->check(CLI::IsMember({"A", "B"}));
  std::string format = "centerline";
  app.add_option("--format", format,
                 "centerline: v1.x frames, info/<timestamp>.json with lane centerlines; "
                 "lane-segment: v2.x frames, info/<timestamp>-ls.json with lane segments, a "
                 "pedestrian crossing and the road boundaries (default centerline)")
      ->check(CLI::IsMember({"centerline", "lane-segment"}));
  bool no_images = false;
  app.add_flag("--no-images", no_images, "write annotations only");
  if (const auto status = olv2::parse_command_line(app, "make_synthetic_data", argc, argv))
    return *status;
  options.out = out_dir;
  options.write_images = !no_images;
  options.subset = subset == "B" ? olv2::Subset::kB : olv2::Subset::kA;
  options.format = format == "lane-segment" ? olv2::FrameFormat::kLaneSegment
                                            : olv2::FrameFormat::kLaneCenterline;
  return olv2::guarded_main("make_synthetic_data", [&] {
    const auto start = std::chrono::steady_clock::now();
    const auto summary = olv2::synthetic::make_synthetic_data(options);
    const double seconds = olv2::seconds_since(start);
    const bool lane_segments = options.format == olv2::FrameFormat::kLaneSegment;
    const std::string objects = lane_segments ? std::to_string(summary.lanes) + " lane segments, " +
                                                    std::to_string(summary.areas) + " areas"
                                              : std::to_string(summary.lanes) + " lanes";
    std::printf(
        "make_synthetic_data: wrote %lld train + %lld val + %lld test frames in "
        "%lld segments (%s, %lld traffic elements, %lld images) to %s in %.2f s\n",
        static_cast<long long>(summary.train_frames), static_cast<long long>(summary.val_frames),
        static_cast<long long>(summary.test_frames), static_cast<long long>(summary.segments),
        objects.c_str(), static_cast<long long>(summary.traffic_elements),
        static_cast<long long>(summary.images), out_dir.c_str(), seconds);
    return 0;
  });
}

}  // namespace olv2::programs::make_synthetic_data
