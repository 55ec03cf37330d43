#pragma once
// OpenLane-V2's `TEDeformableDETRHead`: traffic elements detected by Deformable DETR on the front
// camera, with its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/hungarian_assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/giou_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/layers/deformable_detr_transformer.h"
#include "olv2/models/layers/sine_positional_encoding.h"

namespace olv2 {

// Defaults: of the keys a config may omit, the original class's; of the others, the full
// baseline_large config's.
struct TeDeformableDetrHeadOptions : ObjectHeadOptions {
  int64_t num_classes = 13;  // sigmoid classification, label num_classes = background
  int64_t in_channels = 256;
  int64_t num_query = 100;
  int64_t embed_dims = 256;
  int64_t num_feature_levels = 4;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  int64_t num_heads = 8;  // multi-head and deformable attentions
  int64_t num_points = 4;
  int64_t feedforward_channels = 512;
  double ffn_drop = 0.1;
  double attention_dropout = 0.1;  // multi-head self-attention
  double msda_dropout = 0.1;       // deformable attentions' output
  int64_t num_reg_fcs = 2;
  bool sync_cls_avg_factor = false;
  bool with_box_refine = false;
  SinePositionalEncodingOptions positional_encoding = [] {
    SinePositionalEncodingOptions options;
    options.num_feats = 128;
    options.normalize = true;
    options.offset = -0.5;
    return options;
  }();
  // Any registered loss of class scores and of boxes.
  std::shared_ptr<const Loss> loss_cls = std::make_shared<FocalLoss>();
  std::shared_ptr<const Loss> loss_bbox = weighted_loss<L1Loss>(5.0);
  std::shared_ptr<const Loss> loss_iou = weighted_loss<GIoULoss>(2.0);
  // `train_cfg.assigner` (the detector's `bbox_train_cfg.assigner`, merged in as mmdet does): any
  // registered box assigner; the original's HungarianAssigner by default.
  std::shared_ptr<const AssignerOptions> assigner = [] {
    auto options = std::make_shared<HungarianAssignerOptions>();
    auto reg_cost = std::make_shared<BBoxL1Cost>();
    reg_cost->weight = 2.5;
    reg_cost->box_format = BoxFormat::kXywh;
    options->reg_cost = reg_cost;
    return options;
  }();

  // OpenLane-V2's `type: TEDeformableDETRHead` with its DeformableDetrTransformer (encoder of
  // MultiScaleDeformableAttention layers, decoder of MultiheadAttention + deformable attention
  // layers, every layer's FFN alike) and SinePositionalEncoding. TopoNet's copy of the head,
  // `CustomDeformableDETRHead` (its decoder layers mmdet's `DetrTransformerDecoderLayer`),
  // computes the same; only its box decoding differs, which TopoNet's detector does.
  static Schema schema();
  static TeDeformableDetrHeadOptions from_config(const ConfigNode& section);
  std::shared_ptr<ObjectHeadImpl> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kBoxes; }
  std::optional<BevRange> bev_range() const override { return std::nullopt; }
  int64_t lane_point_dims() const override { return 0; }
  int64_t decoder_layers() const override { return num_decoder_layers; }
};

// OpenLane-V2 `TEDeformableDETRHead`: Deformable DETR with iterative box refinement on the
// front camera's FPN levels. Parameters `transformer.*`, `cls_branches.i`, `reg_branches.i.{0,2,4}`
// (Linear, ReLU, Linear, ReLU, Linear), `query_embedding`.
class TeDeformableDetrHeadImpl : public ObjectHeadImpl {
 public:
  explicit TeDeformableDetrHeadImpl(const TeDeformableDetrHeadOptions& options);

  // mlvl_feats: the front camera's FPN levels [B, C, h_l, w_l]; geometry.batch_input_shape is the
  // padded input (H, W), geometry.img_shapes each sample's un-padded (h, w). Boxes are
  // (cx, cy, w, h) normalised by the un-padded image; the intermediates are the decoder's
  // "inter_states" [L, Q, B, E], "init_reference" [B, Q, 2], "inter_references" [L, B, Q, 4].
  HeadOutputs forward(const std::vector<at::Tensor>& mlvl_feats,
                      const DetrImageGeometry& geometry) override;

  // Losses of every decoder layer against per-sample GT boxes [G, 4] (x1, y1, x2, y2 pixels of
  // the un-padded image) and labels [G]: "loss_cls", "loss_bbox", "loss_iou" of the last layer,
  // then "d{i}.*" of the earlier ones. `reduce_mean` averages a count over the ranks (empty = one
  // process).
  DetrHeadLosses loss(const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_boxes,
                      const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
                      const std::function<double(double)>& reduce_mean = {}) const override;

  // Last-layer detections of `sample`, every query in order (no top-k): boxes scaled to
  // img_shape (h, w) and clamped to it, then divided by `scale_factor` ([w, h, w, h]) unless it
  // is empty.
  Detections decode(const HeadOutputs& outputs, int64_t sample,
                    std::pair<int64_t, int64_t> img_shape,
                    const std::vector<double>& scale_factor) const override;

  void set_dropout(double p) override;
  // The original init_weights: the transformer's init, classification biases at prior 0.01,
  // each regression branch's last Linear zeroed with the first one's (w, h) bias at -2.
  void reset_parameters();
  const TeDeformableDetrHeadOptions& options() const { return options_; }

 private:
  // [B, H, W] masks of every level (true = padding), from the padded and un-padded image sizes.
  std::vector<at::Tensor> level_masks(const std::vector<at::Tensor>& mlvl_feats,
                                      const DetrImageGeometry& geometry) const;
  at::Tensor regress(int64_t layer, const at::Tensor& states) const;

  TeDeformableDetrHeadOptions options_;
  DeformableDetrTransformer transformer_{nullptr};
  torch::nn::ModuleList cls_branches_{nullptr};
  torch::nn::ModuleList reg_branches_{nullptr};
  torch::nn::Embedding query_embedding_{nullptr};
};
TORCH_MODULE(TeDeformableDetrHead);

}  // namespace olv2
