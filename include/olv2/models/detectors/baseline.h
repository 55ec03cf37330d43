#pragma once
// OpenLane-V2's `Baseline` detector: its parts and its losses.
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
#include "olv2/models/bev/custom_ipm_view_transformer.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/topology_detector.h"
#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/heads/topology_head.h"
#include "olv2/models/necks/custom_fpn.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// Defaults: the original's parts (the heads' sizes of their option structs).
struct BaselineOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone = std::make_shared<ResNetOptions>();
  // One output level: the view transformer's input.
  std::shared_ptr<const NeckOptions> img_neck = std::make_shared<CustomFpnOptions>();
  std::shared_ptr<const BevConstructorOptions> img_view_transformer =
      std::make_shared<CustomIpmViewTransformerOptions>();
  std::shared_ptr<const ObjectHeadOptions> lc_head = [] {
    auto head = std::make_shared<CustomDetrHeadOptions>();
    head->object_type = DetrObjectType::kLane;
    return head;
  }();
  std::shared_ptr<const ObjectHeadOptions> te_head = std::make_shared<CustomDetrHeadOptions>();
  std::shared_ptr<const RelationHeadOptions> lclc_head = std::make_shared<TopologyHeadOptions>();
  std::shared_ptr<const RelationHeadOptions> lcte_head = std::make_shared<TopologyHeadOptions>();
  // Stages recomputed in backward (activation checkpointing); see kBaselineCheckpointableStages.
  std::vector<std::string> checkpoint;

  // The `model` section of `type: Baseline`: the keys of the original config, each part of any
  // registered type of its family (img_backbone, img_neck, img_view_transformer, lc_head,
  // te_head, lclc_head, lcte_head), plus `checkpoint: [stage names]`.
  static Schema schema();
  // Validates `model` against schema(); every error names the file, line and key.
  static BaselineOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return lc_head->bev_range().value(); }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

// Names accepted in BaselineOptions::checkpoint.
extern const std::vector<std::string> kBaselineCheckpointableStages;

// ResNet -> CustomFPN -> IPM to BEV; a DETR lane head on the BEV, a DETR traffic-element head on
// the front camera's features, and two topology heads on the decoder embeddings. Losses
// `lc_*`, `te_*`, `topology_lclc_loss_cls`, `topology_lcte_loss_cls`.
class BaselineImpl : public TopologyDetectorImpl {
 public:
  explicit BaselineImpl(const BaselineOptions& options);
  const BaselineOptions& options() const { return options_; }

 protected:
  DetectorLosses compose_losses(const DetectorOutputs& outputs, const Batch& batch) override;
  // As the original: the padded shape of sample 0's front camera.
  std::pair<int64_t, int64_t> traffic_element_input_shape(const Batch& batch) const override;

 private:
  BaselineOptions options_;
};
TORCH_MODULE(Baseline);

}  // namespace olv2
