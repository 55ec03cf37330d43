#pragma once
#include <c10/core/Device.h>

#include <filesystem>

#include "olv2/data/dataset.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/models/detectors/detector.h"

namespace olv2 {

struct ValidationOptions {
  int64_t workers = 1;
  c10::Device device = c10::Device(c10::kCPU);
  std::filesystem::path results_file;  // where the predictions are written
};

// Predicts every frame of `dataset` (batch 1, in dataset order, eval mode, no gradients),
// writes the results file, scores it against the dataset's ground truth with the official
// metrics, and logs a progress line with ETA while it runs. The model is left in eval mode.
EvaluationMetrics validate(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                           const ValidationOptions& options);

}  // namespace olv2
