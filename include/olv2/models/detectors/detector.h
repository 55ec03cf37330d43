#pragma once
// The detectors: what the engine needs of one (losses, predictions), their options, and
// `model.checkpoint`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/batch.h"
#include "olv2/data/bev_range.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/models/pretrained_checkpoint.h"

namespace olv2 {

// Named losses in the original's order; the optimised scalar is their sum.
using LossMap = std::vector<std::pair<std::string, at::Tensor>>;

// What the engine needs of a detector. Submodules carry the original names, so that the
// parameters and buffers equal the Python state dict (see util/state_dict.h for the order).
class DetectorImpl : public torch::nn::Module {
 public:
  // Losses of a batch with ground truth, in training mode.
  virtual LossMap forward_train(const Batch& batch) = 0;
  // Per-frame predictions in the results-file form (lanes as 11-point polylines in metres,
  // boxes in raw front-image pixels). The frame's split is left empty for the caller to set.
  virtual std::vector<FramePrediction> predict(const Batch& batch) = 0;
  // Sets every dropout probability of the model (0 makes training deterministic).
  virtual void set_dropout(double p) = 0;
};

// A detector's options, as read from the `model` section.
struct DetectorOptions {
  virtual ~DetectorOptions() = default;
  virtual std::shared_ptr<DetectorImpl> build() const = 0;
  // The ground area the detector predicts lanes in, [x_min, y_min, z_min, x_max, y_max, z_max]
  // in ego metres.
  virtual BevRange bev_range() const = 0;
  // The checkpoint build_detector loads into the `img_backbone`, if any.
  virtual std::optional<PretrainedCheckpoint> pretrained_backbone() const = 0;
};

// `head` with `train_cfg: {assigner: ...}` added, as mmdet hands a detector's train_cfg to its
// heads; the assigner keeps its place in the file for error messages.
ConfigNode head_with_assigner(const ConfigNode& head, const ConfigNode& assigner);

// The sum of all losses.
at::Tensor total_loss(const LossMap& losses);

// `model.checkpoint`: the stages of `checkpointable` a detector recomputes in backward
// (activation checkpointing).
Schema checkpoint_stages_schema(const std::vector<std::string>& checkpointable);
std::vector<std::string> checkpoint_stages_from_config(const ConfigNode& model);
// Throws an input error naming model.checkpoint for a stage not in `checkpointable`.
void require_checkpointable(const std::vector<std::string>& stages,
                            const std::vector<std::string>& checkpointable);

}  // namespace olv2
