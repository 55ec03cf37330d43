#pragma once
// The detectors: the one interface every detector implements (a forward pass, its losses, its
// decoding) and the steps the engine takes over it, their options, and `model.checkpoint`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/batch.h"
#include "olv2/data/bev_range.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/models/detectors/frame_test_outputs.h"
#include "olv2/models/pretrained_checkpoint.h"
#include "olv2/util/error.h"

namespace olv2 {

// Named losses in the original's order; the optimised scalar is their sum.
using LossMap = std::vector<std::pair<std::string, at::Tensor>>;

// A detector's losses of a batch, with the matching of every decoder layer of its heads.
struct DetectorLosses {
  LossMap losses;
  std::vector<std::vector<AssignResult>> lane_assign;  // [decoder layer][sample]
  std::vector<std::vector<AssignResult>> traffic_element_assign;
  std::vector<std::vector<AssignResult>> area_assign;
};

// What one forward pass of a detector computes, kept for its losses and its decoding; each
// detector's outputs derive from it.
struct ForwardOutputs {
  virtual ~ForwardOutputs() = default;
  // The BEV a next frame would receive as `prev_bev`, [B, bev_h * bev_w, C] as the original
  // keeps it; undefined for a detector that has none.
  virtual at::Tensor next_prev_bev() const { return {}; }
};

// What every detector implements, each in a function of its own over its registered parts: one
// forward pass, the losses of its outputs and their decoding; the engine's steps over them
// (forward_train, predict) are this class's. Submodules carry the original names, so that the
// parameters and buffers equal the Python state dict (see util/state_dict.h for the order).
class DetectorImpl : public torch::nn::Module {
 public:
  // The one forward pass over the frames as given, in train or eval mode.
  virtual std::shared_ptr<ForwardOutputs> forward_outputs(const Batch& batch) = 0;
  // The losses of a batch with ground truth from its forward pass, computed in float32 whatever
  // autocast produced the outputs in, in the original's names and order, with every decoder
  // layer's matching.
  virtual DetectorLosses losses_of(const ForwardOutputs& outputs, const Batch& batch) = 0;
  // Per sample: lanes in metres, relations as probabilities, boxes in the resized front image,
  // or divided by the scale factor when `rescale` (raw front-image pixels).
  virtual std::vector<FrameTestOutputs> decode_outputs(const ForwardOutputs& outputs,
                                                       const Batch& batch, bool rescale) const = 0;
  // The results-file form of `decoded` (rescaled).
  virtual std::vector<FramePrediction> predictions_of(
      const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const = 0;
  // The frames as the original model trains and tests on them: as given, unless the detector's
  // original changes them on the way (TopoNet zeroes each frame's ego motion).
  virtual Batch as_the_original_sees(const Batch& batch) const { return batch; }
  // Sets every dropout probability of the model (0 makes training deterministic).
  virtual void set_dropout(double p) = 0;

  // Losses of a batch with ground truth, in training mode: those of one forward pass over the
  // frames as the original sees them.
  LossMap forward_train(const Batch& batch);
  // Per-frame predictions in the results-file form (lanes as polylines in metres, boxes in raw
  // front-image pixels). The frame's split is left empty for the caller to set.
  std::vector<FramePrediction> predict(const Batch& batch);
};

// `outputs` as the detector's own outputs, `Outputs`; an error when another detector made them.
template <typename Outputs>
const Outputs& outputs_as(const ForwardOutputs& outputs) {
  const auto* own = dynamic_cast<const Outputs*>(&outputs);
  if (own == nullptr) throw runtime_error("a detector was given another detector's outputs");
  return *own;
}

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
// The checkpointable stages of TopoNet and LaneSegNet: extract_feat (one segment) and
// bev_constructor (each BEV encoder layer a segment).
const std::vector<std::string>& image_and_bev_stages();
std::vector<std::string> checkpoint_stages_from_config(const ConfigNode& model);
// Throws an input error naming model.checkpoint for a stage not in `checkpointable`.
void require_checkpointable(const std::vector<std::string>& stages,
                            const std::vector<std::string>& checkpointable);
// Whether `stages` (a detector's model.checkpoint) lists `stage`.
bool stage_listed(const std::vector<std::string>& stages, const std::string& stage);

// An error naming `detector` unless the batch holds images [B, N, 3, H, W] with one meta per
// sample.
void require_multi_view_images(const Batch& batch, const std::string& detector);
// Each frame of `batch` as the first of its scene: the can_bus translation and yaw in degrees
// zeroed, as TopoNet's and LaneSegNet's datasets give every frame for training (`union2one`
// over a queue of one) and their forward_test a scene's first frame, which every frame is
// without a previous BEV.
Batch without_ego_motion(const Batch& batch);

// An error naming `detector` unless the batch carries the ground truth of the losses.
void require_ground_truth(const Batch& batch, const std::string& detector);

}  // namespace olv2
