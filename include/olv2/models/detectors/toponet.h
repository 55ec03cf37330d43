#pragma once
// TopoNet (OpenDriveLab/TopoNet), the scene-graph topology detector OpenLane-V2's users train:
// its parts, its options and its losses.
#include <ATen/core/Tensor.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/batch.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/bev/bev_constructor.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/frame_test_outputs.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// Defaults: the subset-A config's parts.
struct TopoNetOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone;
  // Levels of the BEV constructor's num_feature_levels.
  std::shared_ptr<const NeckOptions> img_neck;
  // Any registered BEV constructor, read in the registry scope `toponet`: in TopoNet's
  // BEVFormerConstructer, `TemporalSelfAttention` is TopoNet's copy (TemporalSelfAttentionCode).
  std::shared_ptr<const BevConstructorOptions> bev_constructor;
  // Any registered traffic-element head with as many decoder layers as the lane head's.
  std::shared_ptr<const ObjectHeadOptions> bbox_head;
  // Any registered lane head that decodes with the traffic-element head's outputs and predicts
  // the relations itself (TopoNetHead).
  std::shared_ptr<const ObjectHeadOptions> lane_head;
  // Stages recomputed in backward (activation checkpointing): extract_feat (one segment) and
  // bev_constructor (each BEV encoder layer a segment).
  std::vector<std::string> checkpoint;

  TopoNetOptions();
  // The `model` section of `type: TopoNet`: the keys of TopoNet's configs (img_backbone,
  // img_neck of any registered type, bev_constructor, bbox_head, lane_head, `train_cfg.bbox` and
  // `train_cfg.lane`, whose assigners go to the heads' `train_cfg` as mmdet merges them), plus
  // `checkpoint: [extract_feat, bev_constructor]`.
  static Schema schema();
  static TopoNetOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return lane_head->bev_range().value(); }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

// Everything one forward pass computes.
struct TopoNetOutputs : ForwardOutputs {
  std::vector<at::Tensor> image_features;  // the neck's levels, each [B, N_cam, C, h, w]
  at::Tensor bev_features;                 // [B, bev_h * bev_w, C]
  HeadOutputs traffic_elements;
  DetrImageGeometry traffic_element_geometry;
  HeadOutputs lanes;  // with the relations `lclc` and `lcte`

  at::Tensor next_prev_bev() const override { return bev_features; }
};

// TopoNet on its first frame (no previous BEV, as it trains and tests): ResNet -> FPN; the
// deformable-DETR traffic-element head on the front camera's levels; the BEVFormer encoder; the
// TopoNet lane head on the BEV, fed every traffic-element decoder layer's states and logits.
// Losses `lane_head.*` then `bbox_head.*` (zeroed when the batch has no traffic element).
class TopoNetImpl : public DetectorImpl {
 public:
  explicit TopoNetImpl(const TopoNetOptions& options);

  // The one forward pass, in train or eval mode, on the can_bus as given, with its outputs
  // typed.
  TopoNetOutputs forward(const Batch& batch);

  std::shared_ptr<ForwardOutputs> forward_outputs(const Batch& batch) override;
  // Lanes as [G, code_size] points in metres; the traffic elements' losses zeroed when the batch
  // has none.
  DetectorLosses losses_of(const ForwardOutputs& outputs, const Batch& batch) override;
  // Lanes [Q, code_size] in metres and their scores; boxes plus the front camera's crop offset
  // (added after the rescaling).
  std::vector<FrameTestOutputs> decode_outputs(const ForwardOutputs& outputs, const Batch& batch,
                                               bool rescale) const override;
  std::vector<FramePrediction> predictions_of(
      const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const override;
  // Every frame without its ego motion (the can_bus translation and yaw in degrees zeroed), as
  // TopoNet's dataset gives it for training and its forward_test for testing.
  Batch as_the_original_sees(const Batch& batch) const override;
  void set_dropout(double p) override;
  const TopoNetOptions& options() const { return options_; }

 private:
  bool checkpoint_listed(const std::string& stage) const;

  TopoNetOptions options_;
  std::shared_ptr<BackboneImpl> img_backbone_;
  std::shared_ptr<NeckImpl> img_neck_;
  std::shared_ptr<BevConstructorImpl> bev_constructor_;
  std::shared_ptr<ObjectHeadImpl> bbox_head_;
  std::shared_ptr<ObjectHeadImpl> lane_head_;
};
TORCH_MODULE(TopoNet);

}  // namespace olv2
