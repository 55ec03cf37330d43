#pragma once
// OpenLane-V2's `CustomDETRHead`, mmdet's DETRHead for lanes or boxes, with its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/hungarian_assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/bev_range.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/giou_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/layers/detr_transformer.h"
#include "olv2/models/layers/ffn.h"

namespace olv2 {

// What a CustomDETRHead detects: lanes (control points normalised by the BEV
// range, matched with LaneHungarianAssigner) or boxes (cx, cy, w, h normalised
// by the image size, matched with HungarianAssigner, with a GIoU loss).
enum class DetrObjectType { kLane, kBox };

struct CustomDetrHeadOptions : ObjectHeadOptions {
  DetrObjectType object_type = DetrObjectType::kBox;
  int64_t num_classes = 1;  // sigmoid classification: one output per class, no background
  int64_t in_channels = 128;
  int64_t num_query = 50;
  int64_t num_reg_dim = 4;  // lanes: 3 x control points; boxes: 4
  int64_t num_layers = 1;   // encoder and decoder layers
  int64_t embed_dims = 64;
  int64_t num_heads = 4;
  int64_t feedforward_channels = 512;
  double dropout = 0.1;      // attention weights and attention output
  double ffn_dropout = 0.1;  // both FFN dropouts (overrides `ffn_drop`, as in the original)
  int64_t num_reg_fcs = 2;
  BevRange lane_range = {-50.0, -25.0, -3.0, 50.0, 25.0, 2.0};  // lanes only
  // Any registered loss of class scores, and of the head's objects (mmdet DETRHead's defaults;
  // `loss_iou` for boxes only).
  std::shared_ptr<const Loss> loss_cls = std::make_shared<FocalLoss>();
  std::shared_ptr<const Loss> loss_bbox = weighted_loss<L1Loss>(5.0);
  std::shared_ptr<const Loss> loss_iou = weighted_loss<GIoULoss>(2.0);
  // `train_cfg.assigner`: any registered assigner of the head's objects (the original's are
  // LaneHungarianAssigner for lanes, HungarianAssigner for boxes).
  std::shared_ptr<const AssignerOptions> assigner = std::make_shared<HungarianAssignerOptions>();

  // OpenLane-V2's `type: CustomDETRHead`.
  static Schema schema();
  // A lane head needs `bev_range`; num_reg_dim is a multiple of 3 for lanes, 4 for boxes.
  static CustomDetrHeadOptions from_config(const ConfigNode& section);
  std::shared_ptr<ObjectHeadImpl> build() const override;
  AssignedObjects objects() const override {
    return object_type == DetrObjectType::kLane ? AssignedObjects::kLanes : AssignedObjects::kBoxes;
  }
  std::optional<BevRange> bev_range() const override;
  int64_t lane_point_dims() const override { return object_type == DetrObjectType::kLane ? 3 : 0; }
  int64_t decoder_layers() const override { return num_layers; }
};

// OpenLane-V2 `CustomDETRHead` (mmdet `DETRHead` with a DETR transformer).
// Parameters: transformer.*, input_proj, fc_cls, reg_ffn.layers.*, fc_reg,
// query_embedding.
class CustomDetrHeadImpl : public ObjectHeadImpl {
 public:
  explicit CustomDetrHeadImpl(const CustomDetrHeadOptions& options);

  // x [B, in_channels, H, W] -> outputs of every decoder layer; intermediates["memory"] is the
  // encoder output [B, E, H, W].
  HeadOutputs forward(const at::Tensor& x, const DetrImageGeometry& geometry);
  // The one level of `levels` as forward(x, geometry).
  HeadOutputs forward(const std::vector<at::Tensor>& levels,
                      const DetrImageGeometry& geometry) override;

  // Losses of every decoder layer against per-sample GT objects ([G, R]: lanes
  // in metres, boxes xyxy pixels) and labels ([G]). `reduce_mean` averages the
  // positive count across ranks (identity on one process).
  DetrHeadLosses loss(const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_objects,
                      const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
                      const std::function<double(double)>& reduce_mean = {}) const override;

  // Matching of one decoder layer's predictions of one sample (cls [Q, C], reg
  // [Q, R]).
  AssignResult assign(const at::Tensor& cls_scores, const at::Tensor& reg_preds,
                      const at::Tensor& gt_objects, const at::Tensor& gt_labels,
                      std::pair<int64_t, int64_t> img_shape) const;

  // Decoding of one sample's last-layer outputs (cls [Q, C], reg [Q, R]), all
  // queries in order.
  Detections decode_lanes(const at::Tensor& cls_scores, const at::Tensor& reg_preds) const;
  // Boxes scaled to `img_shape` (h, w), clamped, then divided by `scale_factor`
  // when given
  // ([w, h, w, h] scale of the resize the image went through; empty = no
  // rescale).
  Detections decode_boxes(const at::Tensor& cls_scores, const at::Tensor& reg_preds,
                          std::pair<int64_t, int64_t> img_shape,
                          const std::vector<double>& scale_factor) const;

  // decode_lanes or decode_boxes of the sample's last-layer outputs.
  Detections decode(const HeadOutputs& outputs, int64_t sample,
                    std::pair<int64_t, int64_t> img_shape,
                    const std::vector<double>& scale_factor) const override;

  void set_dropout(double p) override;
  const CustomDetrHeadOptions& options() const { return options_; }

 private:
  at::Tensor padding_mask(const at::Tensor& x, const DetrImageGeometry& geometry) const;

  CustomDetrHeadOptions options_;
  std::shared_ptr<const Assigner> assigner_;  // built once from `options_.assigner`
  DetrTransformer transformer_{nullptr};
  torch::nn::Conv2d input_proj_{nullptr};
  torch::nn::Linear fc_cls_{nullptr};
  Ffn reg_ffn_{nullptr};
  torch::nn::Linear fc_reg_{nullptr};
  torch::nn::Embedding query_embedding_{nullptr};
};
TORCH_MODULE(CustomDetrHead);

}  // namespace olv2
