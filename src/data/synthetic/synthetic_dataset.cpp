#include "olv2/data/synthetic/synthetic_dataset.h"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

#include "olv2/data/synthetic/camera_rig.h"
#include "olv2/data/synthetic/frame_json.h"
#include "olv2/data/synthetic/renderer.h"
#include "olv2/data/synthetic/scene.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2::synthetic {

namespace {

namespace fs = std::filesystem;

// Random streams, so that e.g. --no-images leaves the annotations unchanged.
enum Stream : uint64_t { kRigStream = 1, kLayoutStream, kFrameStream, kNoiseStream };

constexpr int64_t kFirstTimestamp = 315967000000000000;  // Argoverse 2 era, nanoseconds
constexpr int64_t kSegmentSpacing = 100'000'000'000;     // 100 s between segment starts
constexpr int64_t kFrameSpacing = 500'000'000;           // frames are 0.5 s apart
constexpr int kJpegQuality = 92;

void validate(const SyntheticDataOptions& options) {
  if (options.out.empty()) {
    throw input_error("synthetic data: no output directory given");
  }
  if (options.frames < 1) {
    throw input_error("--frames " + std::to_string(options.frames) + ": expected at least 1");
  }
  if (options.val_frames < 0 || options.val_frames > options.frames) {
    throw input_error("--val-frames " + std::to_string(options.val_frames) + ": expected 0.." +
                      std::to_string(options.frames) + " (at most --frames)");
  }
  if (options.test_frames < 0) {
    throw input_error("--test-frames " + std::to_string(options.test_frames) +
                      ": expected 0 or more");
  }
  if (!(options.image_scale > 0.0 && options.image_scale <= 1.0)) {
    throw input_error("--image-scale " + std::to_string(options.image_scale) +
                      ": expected a value in (0, 1]");
  }
  if (options.frames_per_segment < 1) {
    throw input_error("frames per segment must be at least 1");
  }
}

void write_text(const fs::path& path, const std::string& text) {
  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) throw runtime_error("cannot write " + path.string() + ": " + system_reason());
}

void make_directories(const fs::path& path) {
  std::error_code error;
  fs::create_directories(path, error);
  if (error) {
    throw runtime_error("cannot create directory " + path.string() + ": " + error.message());
  }
}

std::string segment_name(int64_t number) {
  char name[16];
  std::snprintf(name, sizeof(name), "%05lld", static_cast<long long>(number));
  return name;
}

struct SplitPlan {
  std::string name;
  int64_t frames = 0;
  int64_t first_segment = 0;  // segment ids count up from here
  bool annotated = true;
};

class Writer {
 public:
  explicit Writer(const SyntheticDataOptions& options) : options_(options) {}

  // Writes one split's frames; returns its collection entry {segment:
  // ["<ts>.json", ...]}.
  nlohmann::ordered_json write_split(const SplitPlan& plan) {
    nlohmann::ordered_json segments = nlohmann::ordered_json::object();
    for (int64_t begin = 0; begin < plan.frames; begin += options_.frames_per_segment) {
      const int64_t segment = plan.first_segment + begin / options_.frames_per_segment;
      const int64_t count = std::min(options_.frames_per_segment, plan.frames - begin);
      segments[segment_name(segment)] = write_segment(plan, segment, count);
    }
    return segments;
  }

  SyntheticDataSummary& summary() { return summary_; }

 private:
  nlohmann::ordered_json write_segment(const SplitPlan& plan, int64_t segment, int64_t count) {
    const auto segment_key = static_cast<uint64_t>(segment);
    SceneRng rig_rng({options_.seed, kRigStream, segment_key});
    const std::vector<SyntheticCamera> cameras =
        make_camera_rig(options_.subset, options_.image_scale, rig_rng);
    SceneRng layout_rng({options_.seed, kLayoutStream, segment_key});
    const SegmentLayout layout = draw_segment_layout(layout_rng);

    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    ++summary_.segments;
    for (int64_t frame = 0; frame < count; ++frame) {
      const SyntheticFrameId id{
          plan.name, segment_name(segment),
          kFirstTimestamp + segment * kSegmentSpacing + frame * kFrameSpacing};
      const auto frame_key = static_cast<uint64_t>(frame);
      SceneRng frame_rng({options_.seed, kFrameStream, segment_key, frame_key});
      SyntheticScene scene =
          make_scene(layout, static_cast<int>(frame), cameras.front(), frame_rng);
      const bool lane_segments = options_.format == FrameFormat::kLaneSegment;
      if (lane_segments) {
        scene.markings.insert(scene.markings.end(), scene.area_markings.begin(),
                              scene.area_markings.end());
      }
      write_frame(id, cameras, scene, plan.annotated,
                  SceneRng({options_.seed, kNoiseStream, segment_key, frame_key}).bits());
      files.push_back(std::to_string(id.timestamp) + ".json");
      summary_.lanes += static_cast<int64_t>(scene.lanes.size());
      summary_.areas += lane_segments ? static_cast<int64_t>(scene.areas.size()) : 0;
      summary_.traffic_elements += static_cast<int64_t>(scene.traffic_elements.size());
    }
    return files;
  }

  void write_frame(const SyntheticFrameId& id, const std::vector<SyntheticCamera>& cameras,
                   const SyntheticScene& scene, bool annotated, uint64_t noise_seed) {
    const fs::path info_dir = options_.out / id.split / id.segment_id / "info";
    make_directories(info_dir);
    const bool lane_segments = options_.format == FrameFormat::kLaneSegment;
    write_text(info_dir / (std::to_string(id.timestamp) + (lane_segments ? "-ls" : "") + ".json"),
               synthetic_frame_json(id, cameras, scene, annotated, options_.format));
    if (!options_.write_images) {
      return;
    }
    for (size_t index = 0; index < cameras.size(); ++index) {
      const fs::path path = options_.out / synthetic_image_path(id, cameras[index].name);
      make_directories(path.parent_path());
      const cv::Mat image =
          render_camera_image(scene, cameras[index], index == 0, noise_seed + index);
      if (!cv::imwrite(path.string(), image, {cv::IMWRITE_JPEG_QUALITY, kJpegQuality})) {
        throw runtime_error("cannot write image " + path.string());
      }
      ++summary_.images;
    }
  }

  const SyntheticDataOptions& options_;
  SyntheticDataSummary summary_;
};

}  // namespace

SyntheticDataSummary make_synthetic_data(const SyntheticDataOptions& options) {
  validate(options);
  make_directories(options.out);
  const int64_t train_frames = options.frames - options.val_frames;
  // Val segments are numbered from 10000 and test segments from 20000, as the real val and
  // test logs follow the train ones.
  std::vector<SplitPlan> plans = {{"train", train_frames, 0, true},
                                  {"val", options.val_frames, 10000, true}};
  if (options.test_frames > 0) plans.push_back({"test", options.test_frames, 20000, false});

  Writer writer(options);
  nlohmann::ordered_json collection = nlohmann::ordered_json::object();
  for (const SplitPlan& plan : plans) {
    collection[plan.name] = writer.write_split(plan);
  }
  SyntheticDataSummary summary = writer.summary();
  summary.collection_file = options.out / "data_dict_synthetic.json";
  summary.train_frames = train_frames;
  summary.val_frames = options.val_frames;
  summary.test_frames = options.test_frames;
  write_text(summary.collection_file, collection.dump(1) + "\n");
  return summary;
}

}  // namespace olv2::synthetic
