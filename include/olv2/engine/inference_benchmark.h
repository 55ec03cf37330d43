#pragma once
// The `benchmark` command: how fast a config's model predicts with a checkpoint, mmdet's
// tools/analysis_tools/benchmark.py for this project.
#include <cstdint>
#include <string>

#include "olv2/engine/settings/inference_options.h"

namespace olv2 {

struct InferenceBenchmarkOptions {
  // The config, checkpoint, split, --use-fp16, --cfg-options and the launch flags (--device,
  // --threads, --max-frames: the frames predicted, warm-up included) as test_ds reads them.
  InferenceOptions inference;
  int64_t warmup = 5;  // frames predicted before the timing starts
  std::string out;     // a JSON file of the figures; empty: none
};

// Predicts the first frames of `data.<split>` one at a time, as test_ds does (batch 1, eval
// mode, no gradients, the config's loader threads), the first `warmup` untimed, then logs the
// model's frames per second (the forward and the decoding of predictions, CUDA synchronised
// before each clock reading), the rate with the wait for data included, the median time per
// frame and the peak memory, and writes them as one JSON line (and to `out`). Fewer frames
// than warm-up plus one is an input error. Returns the exit status.
int run_inference_benchmark(const InferenceBenchmarkOptions& options);

}  // namespace olv2
