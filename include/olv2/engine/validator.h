#pragma once
#include <c10/core/Device.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "olv2/data/dataset.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/submission_metadata.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/util/collective.h"

namespace olv2 {

struct ValidationOptions {
  int64_t workers = 1;
  c10::Device device = c10::Device(c10::kCPU);
  std::filesystem::path results_file;  // where rank 0 writes the predictions; empty: nowhere
  SubmissionMetadata metadata;         // the results file's metadata members
  Collective* collective = nullptr;    // null: one process
};

struct ValidationResult {
  EvaluationMetrics metrics;
  std::vector<FramePrediction> predictions;  // in dataset order
};

// Predicts the frames of `dataset` (batch 1, eval mode, no gradients) and scores them with the
// official metrics, logging progress with an ETA. Under several ranks each predicts its shard
// (mmdet's unshuffled DistributedSampler) and rank 0 gathers the predictions in dataset order,
// so the metrics equal a single-process validation's. Rank 0 writes the results file (if any) and
// returns the metrics and predictions; the other ranks return nullopt. The model is left in
// eval mode.
std::optional<ValidationResult> validate(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                                         const ValidationOptions& options);

}  // namespace olv2
