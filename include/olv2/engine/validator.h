#pragma once
// Prediction and validation over a dataset, sharded over the ranks and scored with the official
// metrics on rank 0.
#include <c10/core/Device.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "olv2/data/dataset.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/submission_metadata.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"

namespace olv2 {

struct PredictionOptions {
  int64_t workers = 1;
  c10::Device device = c10::Device(c10::kCPU);
  std::optional<AutocastState> autocast;  // none: fp32
  Collective* collective = nullptr;       // null: one process
  std::string progress_label = "val";     // the progress lines' first word
};

// Predicts every frame of `dataset` (batch 1, eval mode, no gradients), logging progress with
// an ETA. Under several ranks each predicts its shard (mmdet's unshuffled DistributedSampler)
// and rank 0 gathers the predictions; rank 0 returns them in dataset order, each frame once,
// the other ranks nullopt. Frames need no annotation. The model is left in eval mode.
std::optional<std::vector<FramePrediction>> predict_frames(DetectorImpl& model,
                                                           const OpenLaneV2Dataset& dataset,
                                                           const PredictionOptions& options);

struct ValidationOptions {
  PredictionOptions prediction;
  std::filesystem::path results_file;  // where rank 0 writes the predictions; empty: nowhere
  SubmissionMetadata metadata;         // the results file's metadata members
  MetricVersion metric_version = MetricVersion::kV1_1;
};

struct ValidationResult {
  EvaluationMetrics metrics;
  std::vector<FramePrediction> predictions;  // in dataset order
};

// predict_frames(), then on rank 0 the results file (if any) and the official metrics against
// the split's annotation, equal to a single-process validation's. Rank 0 returns the metrics
// and predictions; the other ranks return nullopt.
std::optional<ValidationResult> validate(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                                         const ValidationOptions& options);

}  // namespace olv2
