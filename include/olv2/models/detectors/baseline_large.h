#pragma once
#include <ATen/core/Tensor.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <string>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/frame_test_outputs.h"
#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/models/necks/fpn.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

struct BaselineLargeOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone = std::make_shared<ResNetOptions>();
  // Levels of the BEV constructor's num_feature_levels.
  std::shared_ptr<const NeckOptions> img_neck = std::make_shared<FpnOptions>();
  BevFormerConstructerOptions bev_constructor;
  TeDeformableDetrHeadOptions bbox_head;
  LcDeformableDetrHeadOptions pts_bbox_head;
  RelationshipHeadOptions lclc_head;
  RelationshipHeadOptions lcte_head;
  // Stages recomputed in backward (activation checkpointing): extract_feat (one segment) and
  // bev_constructor (each BEV encoder layer a segment).
  std::vector<std::string> checkpoint;

  // The `model` section of `type: BaselineLarge`: the keys of the original baseline_large.py
  // (img_backbone and img_neck of any registered type; bev_constructor, bbox_head,
  // pts_bbox_head, lclc_head, lcte_head, bbox_train_cfg, train_cfg.pts), plus
  // `checkpoint: [extract_feat, bev_constructor]`.
  static Schema schema();
  // Validates `model` against schema(); every error names the file, line and key.
  static BaselineLargeOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return pts_bbox_head.pc_range; }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

extern const std::vector<std::string> kBaselineLargeCheckpointableStages;

// Everything the shared forward pass computes.
struct BaselineLargeOutputs {
  std::vector<at::Tensor> image_features;  // FPN levels, each [B, N, C, h, w]
  at::Tensor bev_features;                 // [B, bev_h * bev_w, C]
  LcHeadOutputs lc;
  TeHeadOutputs te;
  at::Tensor lclc;  // [B, Q_lc, Q_lc, 1] logits
  at::Tensor lcte;  // [B, Q_lc, Q_te, 1] logits
  DetrImageGeometry te_geometry;
};

struct BaselineLargeTrainOutputs {
  LossMap losses;
  std::vector<std::vector<AssignResult>> lc_assign;  // [decoder layer][sample]
  std::vector<std::vector<AssignResult>> te_assign;
};

// OpenLane-V2's `BaselineLarge` on its first frame (no previous BEV, as the original trains
// and tests): ResNet → FPN → BEVFormer encoder; a deformable-DETR lane head on the BEV, a
// deformable-DETR traffic-element head on the front camera's FPN levels, and two
// relationship heads on the last decoder layers' embeddings.
class BaselineLargeImpl : public DetectorImpl {
 public:
  explicit BaselineLargeImpl(const BaselineLargeOptions& options);

  BaselineLargeOutputs simple_forward(const Batch& batch);
  BaselineLargeTrainOutputs forward_train_detailed(const Batch& batch);
  // Per sample: lanes in metres, boxes in the resized front image, or divided by the
  // scale factor when `rescale` (the original's evaluation, in raw front-image pixels).
  std::vector<FrameTestOutputs> forward_test(const Batch& batch, bool rescale);
  // The per-sample decoding of forward_test, from outputs of simple_forward(batch).
  std::vector<FrameTestOutputs> decode(const BaselineLargeOutputs& outputs, const Batch& batch,
                                       bool rescale) const;

  LossMap forward_train(const Batch& batch) override;
  std::vector<FramePrediction> predict(const Batch& batch) override;
  void set_dropout(double p) override;

  const std::shared_ptr<BackboneImpl>& img_backbone() { return img_backbone_; }
  const BaselineLargeOptions& options() const { return options_; }

 private:
  std::vector<at::Tensor> extract_feat(const at::Tensor& images);
  at::Tensor construct_bev(const std::vector<at::Tensor>& features, const Batch& batch);
  bool checkpointed(const std::string& stage) const;

  BaselineLargeOptions options_;
  LcDeformableDetrHead pts_bbox_head_{nullptr};
  std::shared_ptr<BackboneImpl> img_backbone_;
  std::shared_ptr<NeckImpl> img_neck_;
  BevFormerConstructer bev_constructor_{nullptr};
  TeDeformableDetrHead bbox_head_{nullptr};
  RelationshipHead lclc_head_{nullptr};
  RelationshipHead lcte_head_{nullptr};
};
TORCH_MODULE(BaselineLarge);

}  // namespace olv2
