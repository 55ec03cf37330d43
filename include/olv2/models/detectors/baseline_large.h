#pragma once
// OpenLane-V2's `BaselineLarge` detector: its parts and its losses.
#include <torch/nn/pimpl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/bev/bev_constructor.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/topology_detector.h"
#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/models/necks/fpn.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// Defaults: the original's parts (the full config's sizes, see each option struct).
struct BaselineLargeOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone = std::make_shared<ResNetOptions>();
  // Levels of the BEV constructor's num_feature_levels.
  std::shared_ptr<const NeckOptions> img_neck = std::make_shared<FpnOptions>();
  std::shared_ptr<const BevConstructorOptions> bev_constructor =
      std::make_shared<BevFormerConstructerOptions>();
  std::shared_ptr<const ObjectHeadOptions> bbox_head =
      std::make_shared<TeDeformableDetrHeadOptions>();
  std::shared_ptr<const ObjectHeadOptions> pts_bbox_head =
      std::make_shared<LcDeformableDetrHeadOptions>();
  std::shared_ptr<const RelationHeadOptions> lclc_head =
      std::make_shared<RelationshipHeadOptions>();
  std::shared_ptr<const RelationHeadOptions> lcte_head =
      std::make_shared<RelationshipHeadOptions>();
  // Stages recomputed in backward (activation checkpointing): extract_feat (one segment) and
  // bev_constructor (each BEV encoder layer a segment).
  std::vector<std::string> checkpoint;

  // The `model` section of `type: BaselineLarge`: the keys of the original baseline_large.py,
  // each part of any registered type of its family (img_backbone, img_neck, bev_constructor,
  // bbox_head, pts_bbox_head, lclc_head, lcte_head), `bbox_train_cfg` and `train_cfg.pts`, whose
  // assigners go to the heads' `train_cfg` as mmdet merges them, plus
  // `checkpoint: [extract_feat, bev_constructor]`.
  static Schema schema();
  // Validates `model` against schema(); every error names the file, line and key.
  static BaselineLargeOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return pts_bbox_head->bev_range().value(); }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

extern const std::vector<std::string> kBaselineLargeCheckpointableStages;

// On its first frame (no previous BEV, as the original trains and tests): ResNet -> FPN ->
// BEVFormer encoder; a deformable-DETR lane head on the BEV, a deformable-DETR traffic-element
// head on the front camera's FPN levels, and two relationship heads on the last decoder layers'
// embeddings. Losses `lane_head.*`, `lclc_head.loss_rel`, `bbox_head.*`, `lcte_head.loss_rel`.
class BaselineLargeImpl : public TopologyDetectorImpl {
 public:
  explicit BaselineLargeImpl(const BaselineLargeOptions& options);
  const BaselineLargeOptions& options() const { return options_; }

 protected:
  DetectorLosses compose_losses(const DetectorOutputs& outputs, const Batch& batch) override;
  // As the original: the padded images' shape.
  std::pair<int64_t, int64_t> traffic_element_input_shape(const Batch& batch) const override;

 private:
  BaselineLargeOptions options_;
};
TORCH_MODULE(BaselineLarge);

}  // namespace olv2
