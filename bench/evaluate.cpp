// Benchmark of the OpenLane-V2 evaluation on a val-sized split: ground truth from the synthetic
// data generator (annotations only, no images), 50 lanes and 30 traffic elements predicted per
// frame as the baseline does, scored end to end (read ground truth, write and read the results
// file, compute the metrics). Prints a table and one JSON line.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include "cli/command_line.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/evaluation/results_writer.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"

namespace olv2::programs::bench_evaluate {

namespace {

namespace fs = std::filesystem;

struct BenchOptions {
  long long frames = 4806;  // the OpenLane-V2 subset A val split
  int lanes = 50;           // baseline lane queries kept per frame
  int traffic_elements = 30;
  fs::path work_dir = fs::temp_directory_path() / "olv2_bench_evaluate";
  std::uint64_t seed = 0;
};

// Wall-clock and process CPU seconds of one step (CPU time shows the cost on a busy machine).
class StepTimer {
 public:
  StepTimer() : wall_(std::chrono::steady_clock::now()), cpu_(std::clock()) {}
  double wall_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count();
  }
  double cpu_s() const { return static_cast<double>(std::clock() - cpu_) / CLOCKS_PER_SEC; }

 private:
  std::chrono::steady_clock::time_point wall_;
  std::clock_t cpu_;
};

struct Step {
  const char* name;
  double wall_s;
  double cpu_s;
};

// A baseline-like prediction: noisy copies of the ground truth first, then clutter, with random
// confidences and topology scores.
olv2::FramePrediction predict(const olv2::FrameGroundTruth& gt, const BenchOptions& options,
                              std::mt19937& rng) {
  std::normal_distribution<float> noise(0.0f, 0.6f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  olv2::FramePrediction prediction;
  prediction.frame = gt.frame;
  for (int i = 0; i < options.lanes; ++i) {
    olv2::LanePrediction lane;
    if (static_cast<std::size_t>(i) < gt.num_lanes()) {
      lane.points = gt.lanes[static_cast<std::size_t>(i)];
    } else {
      const float y = 30.0f * (unit(rng) - 0.5f);
      for (int k = 0; k <= 10; ++k) lane.points.push_back({-50.0f + 10.0f * k, y, 0.0f});
    }
    const float dy = noise(rng);
    for (auto& point : lane.points) point = {point[0] + noise(rng) * 0.3f, point[1] + dy, point[2]};
    lane.confidence = unit(rng);
    prediction.lanes.push_back(std::move(lane));
  }
  for (int j = 0; j < options.traffic_elements; ++j) {
    olv2::TrafficElementPrediction element;
    if (static_cast<std::size_t>(j) < gt.num_traffic_elements()) {
      element.box = gt.traffic_element_boxes[static_cast<std::size_t>(j)];
      element.attribute = gt.traffic_element_attributes[static_cast<std::size_t>(j)];
    } else {
      const float x = 1400.0f * unit(rng);
      const float y = 1900.0f * unit(rng);
      element.box = {x, y, x + 20.0f + 100.0f * unit(rng), y + 20.0f + 100.0f * unit(rng)};
      element.attribute = static_cast<int>(13.0f * unit(rng)) % 13;
    }
    element.box[0] += 5.0f * noise(rng);
    element.box[2] = std::max(element.box[0], element.box[2] + 5.0f * noise(rng));
    element.confidence = unit(rng);
    prediction.traffic_elements.push_back(element);
  }
  for (int k = 0; k < options.lanes * options.lanes; ++k) {
    prediction.topology_lclc.push_back(unit(rng));
  }
  for (int k = 0; k < options.lanes * options.traffic_elements; ++k) {
    prediction.topology_lcte.push_back(unit(rng));
  }
  return prediction;
}

int run(const BenchOptions& options) {
  olv2::synthetic::SyntheticDataOptions data;
  data.out = options.work_dir / "data";
  data.frames = options.frames;
  data.val_frames = options.frames;
  data.seed = options.seed;
  data.write_images = false;
  StepTimer timer;
  const olv2::synthetic::SyntheticDataSummary summary = olv2::synthetic::make_synthetic_data(data);
  const Step generate{"generate GT (untimed)", timer.wall_s(), timer.cpu_s()};

  timer = StepTimer();
  const std::vector<olv2::FrameGroundTruth> gt =
      olv2::load_ground_truth(data.out, summary.collection_file, "val");
  const Step load_gt{"read ground truth", timer.wall_s(), timer.cpu_s()};

  std::mt19937 rng(static_cast<std::mt19937::result_type>(options.seed));
  std::vector<olv2::FramePrediction> predictions;
  std::vector<olv2::FrameId> frames;
  std::size_t gt_lanes = 0;
  std::size_t gt_elements = 0;
  for (const olv2::FrameGroundTruth& frame : gt) {
    predictions.push_back(predict(frame, options, rng));
    frames.push_back(frame.frame);
    gt_lanes += frame.num_lanes();
    gt_elements += frame.num_traffic_elements();
  }

  const fs::path results_file = options.work_dir / "results.json";
  timer = StepTimer();
  olv2::write_results_file(results_file, predictions, olv2::method_only("bench"));
  const Step write{"write results file", timer.wall_s(), timer.cpu_s()};

  timer = StepTimer();
  const std::vector<olv2::FramePrediction> read = olv2::read_results_file(results_file, frames);
  const Step read_results{"read results file", timer.wall_s(), timer.cpu_s()};

  timer = StepTimer();
  const olv2::EvaluationMetrics metrics = olv2::evaluate(gt, read);
  const Step compute{"metrics", timer.wall_s(), timer.cpu_s()};
  const Step total{"score = read GT + results + metrics",
                   load_gt.wall_s + read_results.wall_s + compute.wall_s,
                   load_gt.cpu_s + read_results.cpu_s + compute.cpu_s};

  const double results_mb = static_cast<double>(fs::file_size(results_file)) / 1e6;
  std::printf(
      "evaluate benchmark: %zu val frames (%zu GT lanes, %zu GT traffic elements), "
      "%d lanes + %d traffic elements predicted per frame, %u hardware threads\n",
      gt.size(), gt_lanes, gt_elements, options.lanes, options.traffic_elements,
      std::thread::hardware_concurrency());
  std::printf("results file: %.0f MB\n", results_mb);
  std::printf("%-36s %10s %10s\n", "step", "wall s", "cpu s");
  nlohmann::ordered_json steps = nlohmann::ordered_json::object();
  for (const Step& step : {generate, load_gt, write, read_results, compute, total}) {
    std::printf("%-36s %10.2f %10.2f\n", step.name, step.wall_s, step.cpu_s);
    steps[step.name] = {{"wall_s", step.wall_s}, {"cpu_s", step.cpu_s}};
  }
  std::printf("OLS %.4f DET_l %.4f DET_t %.4f TOP_ll %.4f TOP_lt %.4f\n", metrics.score,
              metrics.det_l, metrics.det_t, metrics.top_ll, metrics.top_lt);
  nlohmann::ordered_json json = {{"bench", "evaluate"},
                                 {"frames", gt.size()},
                                 {"pred_lanes", options.lanes},
                                 {"pred_traffic_elements", options.traffic_elements},
                                 {"gt_lanes", gt_lanes},
                                 {"gt_traffic_elements", gt_elements},
                                 {"threads", std::thread::hardware_concurrency()},
                                 {"results_mb", results_mb},
                                 {"steps", steps},
                                 {"OLS", metrics.score}};
  std::printf("%s\n", json.dump().c_str());
  fs::remove_all(options.work_dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions options;
  CLI::App app{"Measure OpenLane-V2 evaluation on a val-sized synthetic split."};
  app.add_option("--frames", options.frames, "val frames (default 4806, subset A's)");
  app.add_option("--lanes", options.lanes, "predicted lanes per frame (default 50)");
  app.add_option("--traffic-elements", options.traffic_elements,
                 "predicted traffic elements per frame (default 30)");
  app.add_option("--work-dir", options.work_dir,
                 "scratch folder, removed afterwards (default: olv2_bench_evaluate in the "
                 "temporary folder)");
  app.add_option("--seed", options.seed, "seed of data and predictions (default 0)");
  if (const auto status = olv2::parse_command_line(app, "bench_evaluate", argc, argv))
    return *status;
  return olv2::guarded_main("bench_evaluate", [&] { return run(options); });
}

}  // namespace olv2::programs::bench_evaluate
