#pragma once
// The plumbing every OpenLane-V2 detector shares: multi-camera images -> backbone -> neck -> BEV
// constructor; a lane head on the BEV, a traffic-element head on the front camera's levels, two
// relation heads on their query states. Each part is any registered type of its family; a
// detector names its parts (the original's state-dict names) and composes its losses.
#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/data/batch.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/bev/bev_constructor.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/models/detectors/frame_test_outputs.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

// Everything one forward pass computes.
struct DetectorOutputs : ForwardOutputs {
  std::vector<at::Tensor> image_features;  // the neck's levels, each [B, N_cam, C, h, w]
  at::Tensor bev_features;                 // [B, C, bev_h, bev_w]
  HeadOutputs lanes;
  HeadOutputs traffic_elements;
  at::Tensor lclc;  // the relation heads' scores, in their own form
  at::Tensor lcte;
  DetrImageGeometry lane_geometry;  // the BEV grid
  DetrImageGeometry traffic_element_geometry;

  at::Tensor next_prev_bev() const override { return bev_features.flatten(2).transpose(1, 2); }
};

class TopologyDetectorImpl : public DetectorImpl {
 public:
  // The one forward pass, in train or eval mode, with its outputs typed.
  DetectorOutputs forward(const Batch& batch);

  std::shared_ptr<ForwardOutputs> forward_outputs(const Batch& batch) override;
  DetectorLosses losses_of(const ForwardOutputs& outputs, const Batch& batch) override;
  std::vector<FrameTestOutputs> decode_outputs(const ForwardOutputs& outputs, const Batch& batch,
                                               bool rescale) const override;
  std::vector<FramePrediction> predictions_of(
      const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const override;
  void set_dropout(double p) override;

  const std::shared_ptr<BackboneImpl>& img_backbone() const { return img_backbone_; }
  const std::shared_ptr<NeckImpl>& img_neck() const { return img_neck_; }
  const std::shared_ptr<BevConstructorImpl>& bev_constructor() const { return bev_constructor_; }

 protected:
  // `checkpoint`: the stages recomputed in backward, of "extract_feat" (backbone and neck, one
  // segment) and `bev_stage` (the BEV constructor's name).
  TopologyDetectorImpl(std::string name, std::vector<std::string> checkpoint,
                       std::string bev_stage);

  // The detector's losses in the original's names and order, from float32 outputs.
  virtual DetectorLosses compose_losses(const DetectorOutputs& outputs, const Batch& batch) = 0;
  // The padded input shape (h, w) the traffic-element head's masks are drawn in.
  virtual std::pair<int64_t, int64_t> traffic_element_input_shape(const Batch& batch) const = 0;

  // Whether `model.checkpoint` lists `stage`.
  bool checkpoint_listed(const std::string& stage) const;

  // Registered by the derived detector, in the original's state-dict order.
  std::shared_ptr<BackboneImpl> img_backbone_;
  std::shared_ptr<NeckImpl> img_neck_;
  std::shared_ptr<BevConstructorImpl> bev_constructor_;
  std::shared_ptr<ObjectHeadImpl> lane_head_;
  std::shared_ptr<ObjectHeadImpl> traffic_element_head_;
  std::shared_ptr<RelationHeadImpl> lclc_head_;
  std::shared_ptr<RelationHeadImpl> lcte_head_;

 private:
  std::string name_;
  std::vector<std::string> checkpoint_;
  std::string bev_stage_;
};

}  // namespace olv2
