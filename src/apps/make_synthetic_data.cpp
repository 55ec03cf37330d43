// Writes a small synthetic dataset in the OpenLane-V2 subset A on-disk format.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "cli/command_line.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"

int main(int argc, char** argv) {
  olv2::synthetic::SyntheticDataOptions options;
  CLI::App app{
      "Writes a synthetic OpenLane-V2 dataset (subset A or B format): "
      "collection, frame "
      "JSONs and camera images."};
  std::string out;
  app.add_option("--out", out, "Output directory (the data_root of a config)")->required();
  app.add_option("--frames", options.frames, "Frames in all")->capture_default_str();
  app.add_option("--val-frames", options.val_frames, "Frames of them in the val split")
      ->capture_default_str();
  app.add_option("--test-frames", options.test_frames,
                 "Frames of an unannotated `test` split, besides --frames")
      ->capture_default_str();
  app.add_option("--frames-per-segment", options.frames_per_segment,
                 "Consecutive frames of one road layout (a segment)")
      ->capture_default_str();
  app.add_option("--seed", options.seed, "Random seed")->capture_default_str();
  app.add_option("--image-scale", options.image_scale,
                 "Image size relative to the real cameras (front 1550x2048, "
                 "others 2048x1550)")
      ->capture_default_str();
  std::string subset = "A";
  app.add_option("--subset", subset,
                 "A: the 7 Argoverse 2 cameras; B: the 6 nuScenes cameras (1600x900)")
      ->check(CLI::IsMember({"A", "B"}))
      ->capture_default_str();
  bool no_images = false;
  app.add_flag("--no-images", no_images, "Write annotations only");
  if (const auto status = olv2::parse_command_line(app, "make_synthetic_data", argc, argv))
    return *status;
  options.out = out;
  options.write_images = !no_images;
  options.subset = subset == "B" ? olv2::Subset::kB : olv2::Subset::kA;
  return olv2::guarded_main("make_synthetic_data", [&] {
    const auto start = std::chrono::steady_clock::now();
    const auto summary = olv2::synthetic::make_synthetic_data(options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "make_synthetic_data: wrote %lld train + %lld val + %lld test frames in "
        "%lld segments (%lld lanes, "
        "%lld traffic elements, %lld images) to %s in %.2f s\n",
        static_cast<long long>(summary.train_frames), static_cast<long long>(summary.val_frames),
        static_cast<long long>(summary.test_frames), static_cast<long long>(summary.segments),
        static_cast<long long>(summary.lanes), static_cast<long long>(summary.traffic_elements),
        static_cast<long long>(summary.images), out.c_str(), seconds);
    return 0;
  });
}
