#pragma once
// LaneSegNet (OpenDriveLab/LaneSegNet), the lane-segment detector of OpenLane-V2's v2.x task:
// its parts, its options and its losses.
#include <ATen/core/Tensor.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/batch.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/bev/bev_constructor.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/frame_test_outputs.h"
#include "olv2/models/heads/laneseg_head.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// The registry scope of LaneSegNet's own copies of parts its configs name as the originals (its
// BEVFormer modules, its RelationshipHead), which the Map Element Bucket shares.
inline constexpr const char* kLaneSegNetScope = "lanesegnet";

// LaneSegNet's relation head as its configs set it: a RelationshipHead scoring the matched pairs
// only, MLPs not shared, focal loss weight 5.
std::shared_ptr<const RelationHeadOptions> lanesegnet_relation_head();

// The lane-segment ground truth of each sample of `batch`; an input error naming `detector` when
// the batch has none (no line types and instance masks).
std::vector<LaneSegmentTargets> lane_segment_targets(const Batch& batch,
                                                     const std::string& detector);

// One sample's lane segments as the test outputs carry them: the last layer's lane segments
// [Q, code_size] in metres, their class probabilities [Q, C] and line types (argmax) [Q, 2].
FrameTestOutputs lane_segment_test_outputs(const LaneSegHeadImpl& lane_head,
                                           const LaneSegmentOutputs& lanes, int64_t sample);

// Defaults: the subset-A config's parts.
struct LaneSegNetOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone;
  // Levels of the BEV constructor's num_feature_levels.
  std::shared_ptr<const NeckOptions> img_neck;
  // Any registered BEV constructor, read in the registry scope `lanesegnet`, where
  // `TemporalSelfAttention` is LaneSegNet's copy (TopoNet's code).
  std::shared_ptr<const BevConstructorOptions> bev_constructor;
  // `lane_head`: LaneSegHead; its `train_cfg` is the detector's `train_cfg.lane`.
  LaneSegHeadOptions lane_head;
  // `lclc_head`: any registered relation head of the lane segments' query states, read in the
  // scope `lanesegnet` (where `RelationshipHead` scores the matched pairs only); none when null.
  std::shared_ptr<const RelationHeadOptions> lclc_head;
  // Stages recomputed in backward (activation checkpointing): extract_feat (one segment) and
  // bev_constructor (each BEV encoder layer a segment).
  std::vector<std::string> checkpoint;

  LaneSegNetOptions();
  // The `model` section of `type: LaneSegNet`: the keys of LaneSegNet's config (img_backbone,
  // img_neck of any registered type, bev_constructor, lane_head, lclc_head, `train_cfg.lane`
  // whose assigner goes to the lane head's `train_cfg` as mmdet merges it), plus
  // `checkpoint: [extract_feat, bev_constructor]`. `bbox_head` and `lcte_head` (the Map Element
  // Bucket's traffic elements) must be absent or null, `video_test_mode` false.
  static Schema schema();
  static LaneSegNetOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return lane_head.pc_range; }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

// Everything one forward pass computes.
struct LaneSegNetOutputs : ForwardOutputs {
  std::vector<at::Tensor> image_features;  // the neck's levels, each [B, N_cam, C, h, w]
  at::Tensor bev_features;                 // [B, bev_h * bev_w, C]
  LaneSegmentOutputs lanes;
  at::Tensor lsls;  // [B, Q, Q, 1] lane-segment relation logits of the last layer; undefined
                    // without an lclc_head

  at::Tensor next_prev_bev() const override { return bev_features; }
};

// LaneSegNet on its first frame (no previous BEV, as it trains and tests): ResNet -> FPN; the
// BEVFormer encoder; the lane-segment head on the BEV; the lane-segment relation head on the
// head's query states. Losses `lane_head.*` then `lclc_head.loss_rel`.
class LaneSegNetImpl : public DetectorImpl {
 public:
  explicit LaneSegNetImpl(const LaneSegNetOptions& options);

  // The one forward pass, in train or eval mode, on the can_bus as given, with its outputs
  // typed.
  LaneSegNetOutputs forward(const Batch& batch);

  std::shared_ptr<ForwardOutputs> forward_outputs(const Batch& batch) override;
  // Lane segments as [G, code_size] points in metres with their labels, boundary types and
  // instance masks; the relations against `gt_topology_lclc` (lane segments only).
  DetectorLosses losses_of(const ForwardOutputs& outputs, const Batch& batch) override;
  // The last layer's lane segments [Q, code_size] in metres with their class probabilities
  // [Q, C], and the relations' probabilities.
  std::vector<FrameTestOutputs> decode_outputs(const ForwardOutputs& outputs, const Batch& batch,
                                               bool rescale) const override;
  // Not available yet: the lane-segment results file is written by a later version.
  std::vector<FramePrediction> predictions_of(
      const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const override;
  // Every frame without its ego motion, as LaneSegNet's dataset and forward_test give it.
  Batch as_the_original_sees(const Batch& batch) const override;
  void set_dropout(double p) override;
  const LaneSegNetOptions& options() const { return options_; }
  LaneSegHeadImpl& lane_head() { return *lane_head_; }

 private:
  bool checkpoint_listed(const std::string& stage) const;

  LaneSegNetOptions options_;
  std::shared_ptr<BackboneImpl> img_backbone_;
  std::shared_ptr<NeckImpl> img_neck_;
  std::shared_ptr<BevConstructorImpl> bev_constructor_;
  LaneSegHead lane_head_{nullptr};
  std::shared_ptr<RelationHeadImpl> lclc_head_;
};
TORCH_MODULE(LaneSegNet);

}  // namespace olv2
