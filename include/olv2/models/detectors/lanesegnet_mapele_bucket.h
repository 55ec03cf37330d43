#pragma once
// LaneSegNet's Map Element Bucket (`LaneSegNetMapElementBucket`), the baseline of the whole v2.x
// lane-segment task: LaneSegNet's lane segments, deformable-DETR traffic elements, MapTR areas
// and two relation heads; its parts, its options and its losses.
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
#include "olv2/models/heads/maptr_head.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// Defaults: the subset-A Map Element Bucket config's parts. Every head but the lane head may be
// null (absent from the model), as in the original; `lste_head` needs `bbox_head`.
struct LaneSegNetMapElementBucketOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone;
  std::shared_ptr<const NeckOptions> img_neck;
  // Any registered BEV constructor, read in the registry scope `lanesegnet` (as LaneSegNet's).
  std::shared_ptr<const BevConstructorOptions> bev_constructor;
  // `lane_head`: LaneSegHead of one class (lane segments; areas are the area head's); its
  // `train_cfg` is the detector's `train_cfg.lane`.
  LaneSegHeadOptions lane_head;
  // `lsls_head`, `lste_head`: any registered relation heads, read in the scope `lanesegnet`
  // (RelationshipHead scoring the matched pairs only): lane segment to lane segment, lane
  // segment to traffic element.
  std::shared_ptr<const RelationHeadOptions> lsls_head;
  std::shared_ptr<const RelationHeadOptions> lste_head;
  // `bbox_head`: any registered traffic-element head on the front camera (LaneSegNet's copy of
  // TopoNet's CustomDeformableDETRHead); its `train_cfg` is the detector's `train_cfg.bbox`.
  std::shared_ptr<const ObjectHeadOptions> bbox_head;
  // `area_head`: MapTRHead on the BEV; its `train_cfg` is the detector's `train_cfg.area`.
  std::optional<MapTrHeadOptions> area_head;
  // Stages recomputed in backward (activation checkpointing): extract_feat (one segment) and
  // bev_constructor (each BEV encoder layer a segment).
  std::vector<std::string> checkpoint;

  LaneSegNetMapElementBucketOptions();
  // The `model` section of `type: LaneSegNetMapElementBucket`: the keys of its config
  // (img_backbone, img_neck, bev_constructor, lane_head, lsls_head, bbox_head, lste_head,
  // area_head, `train_cfg.{lane,bbox,area}` whose assigners go to the heads' `train_cfg` as
  // mmdet merges them), plus `checkpoint: [extract_feat, bev_constructor]`. `video_test_mode`
  // must be false.
  static Schema schema();
  static LaneSegNetMapElementBucketOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return lane_head.pc_range; }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

// Everything one forward pass computes.
struct LaneSegNetMapElementBucketOutputs : ForwardOutputs {
  std::vector<at::Tensor> image_features;  // the neck's levels, each [B, N_cam, C, h, w]
  at::Tensor bev_features;                 // [B, bev_h * bev_w, C]
  LaneSegmentOutputs lanes;
  at::Tensor lsls;  // [B, Q, Q, 1] lane-segment relation logits; undefined without lsls_head
  HeadOutputs traffic_elements;  // undefined tensors without bbox_head
  DetrImageGeometry traffic_element_geometry;
  at::Tensor lste;     // [B, Q, T, 1] lane-segment to traffic-element logits; undefined without
  MapTrOutputs areas;  // undefined tensors without area_head

  at::Tensor next_prev_bev() const override { return bev_features; }
};

// The Map Element Bucket on its first frame (no previous BEV, as it trains and tests): ResNet ->
// FPN; the BEVFormer encoder; LaneSegNet's lane-segment head on the BEV and the lane-segment
// relation head on its query states; the traffic-element head on the front camera's levels and
// the lane-segment to traffic-element relation head; MapTR's area head on the BEV. Losses
// `lane_head.*`, `lsls_head.loss_rel`, `bbox_head.*`, `lste_head.loss_rel` (both zeroed when the
// batch has no traffic element), `area_head.*`.
class LaneSegNetMapElementBucketImpl : public DetectorImpl {
 public:
  explicit LaneSegNetMapElementBucketImpl(const LaneSegNetMapElementBucketOptions& options);

  // The one forward pass, in train or eval mode, on the can_bus as given, with its outputs
  // typed.
  LaneSegNetMapElementBucketOutputs forward(const Batch& batch);

  std::shared_ptr<ForwardOutputs> forward_outputs(const Batch& batch) override;
  // Lane segments [G, code_size] in metres with their labels, boundary types and instance
  // masks; traffic elements as boxes; areas [G_a, P, 3] with their labels; the relations
  // against `gt_topology_lclc` (lsls) and `gt_topology_lcte` (lste).
  DetectorLosses losses_of(const ForwardOutputs& outputs, const Batch& batch) override;
  // Per frame the last layer's lane segments with their class probabilities and line types,
  // traffic elements (boxes in raw front-camera pixels), areas [V, P, 3] with their class
  // probabilities [V, C], and both relations' probabilities.
  std::vector<FrameTestOutputs> decode_outputs(const ForwardOutputs& outputs, const Batch& batch,
                                               bool rescale) const override;
  // The Map Element Bucket dataset's `format_results` (map_element_bucket_predictions.h).
  std::vector<FramePrediction> predictions_of(
      const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const override;
  // Every frame without its ego motion, as the original's dataset and forward_test give it.
  Batch as_the_original_sees(const Batch& batch) const override;
  void set_dropout(double p) override;
  const LaneSegNetMapElementBucketOptions& options() const { return options_; }

 private:
  bool checkpoint_listed(const std::string& stage) const;

  LaneSegNetMapElementBucketOptions options_;
  std::shared_ptr<BackboneImpl> img_backbone_;
  std::shared_ptr<NeckImpl> img_neck_;
  std::shared_ptr<BevConstructorImpl> bev_constructor_;
  LaneSegHead lane_head_{nullptr};
  std::shared_ptr<RelationHeadImpl> lsls_head_;
  std::shared_ptr<ObjectHeadImpl> bbox_head_;
  std::shared_ptr<RelationHeadImpl> lste_head_;
  MapTrHead area_head_{nullptr};
};
TORCH_MODULE(LaneSegNetMapElementBucket);

}  // namespace olv2
