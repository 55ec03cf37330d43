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
#include "olv2/models/bev/custom_ipm_view_transformer.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/frame_test_outputs.h"
#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/models/heads/topology_head.h"
#include "olv2/models/necks/custom_fpn.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

struct BaselineOptions : DetectorOptions {
  std::shared_ptr<const BackboneOptions> img_backbone = std::make_shared<ResNetOptions>();
  // One output level: the view transformer's input.
  std::shared_ptr<const NeckOptions> img_neck = std::make_shared<CustomFpnOptions>();
  CustomIpmViewTransformerOptions img_view_transformer;
  CustomDetrHeadOptions lc_head;
  CustomDetrHeadOptions te_head;
  TopologyHeadOptions lclc_head;
  TopologyHeadOptions lcte_head;
  // Stages recomputed in backward (activation checkpointing); see kCheckpointableStages.
  std::vector<std::string> checkpoint;

  // The `model` section of `type: Baseline`: the keys of the original config (img_backbone and
  // img_neck of any registered type; img_view_transformer, lc_head, te_head, lclc_head,
  // lcte_head), plus `checkpoint: [stage names]`.
  static Schema schema();
  // Validates `model` against schema(); every error names the file, line and key.
  static BaselineOptions from_config(const ConfigNode& model);
  std::shared_ptr<DetectorImpl> build() const override;
  BevRange bev_range() const override { return lc_head.bev_range; }
  std::optional<PretrainedCheckpoint> pretrained_backbone() const override {
    return img_backbone->init_cfg;
  }
};

// Names accepted in BaselineOptions::checkpoint.
extern const std::vector<std::string> kBaselineCheckpointableStages;

// Everything the shared forward pass computes.
struct BaselineOutputs {
  at::Tensor image_features;  // [B*N, C, h, w] FPN output
  at::Tensor bev_features;    // [B, C, ny, nx]
  DetrHeadOutputs lc;
  DetrHeadOutputs te;
  at::Tensor lclc;  // [L, B, Q_lc, Q_lc, 1] probabilities
  at::Tensor lcte;  // [L, B, Q_lc, Q_te, 1]
  DetrImageGeometry lc_geometry;
  DetrImageGeometry te_geometry;
};

struct BaselineTrainOutputs {
  LossMap losses;
  std::vector<AssignResult> lc_assign;  // last decoder layer, one per sample
  std::vector<AssignResult> te_assign;
};

// OpenLane-V2's `Baseline`: ResNet → CustomFPN → IPM to BEV; a DETR lane head on the BEV, a
// DETR traffic-element head on the front camera's features, and two topology heads on the
// decoder embeddings.
class BaselineImpl : public DetectorImpl {
 public:
  explicit BaselineImpl(const BaselineOptions& options);

  BaselineOutputs simple_forward(const Batch& batch);
  BaselineTrainOutputs forward_train_detailed(const Batch& batch);
  std::vector<FrameTestOutputs> forward_test(const Batch& batch);

  LossMap forward_train(const Batch& batch) override;
  std::vector<FramePrediction> predict(const Batch& batch) override;
  void set_dropout(double p) override;

  const std::shared_ptr<BackboneImpl>& img_backbone() { return img_backbone_; }
  const std::shared_ptr<NeckImpl>& img_neck() { return img_neck_; }
  CustomIpmViewTransformer& img_view_transformer() { return img_view_transformer_; }
  const BaselineOptions& options() const { return options_; }

 private:
  at::Tensor extract_feat(const at::Tensor& images);
  bool checkpointed(const std::string& stage) const;

  BaselineOptions options_;
  std::shared_ptr<BackboneImpl> img_backbone_;
  std::shared_ptr<NeckImpl> img_neck_;
  CustomIpmViewTransformer img_view_transformer_{nullptr};
  CustomDetrHead lc_head_{nullptr};
  CustomDetrHead te_head_{nullptr};
  TopologyHead lclc_head_{nullptr};
  TopologyHead lcte_head_{nullptr};
};
TORCH_MODULE(Baseline);

}  // namespace olv2
