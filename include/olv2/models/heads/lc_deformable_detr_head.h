#pragma once
// OpenLane-V2's `LCDeformableDETRHead`: lane centerlines decoded from the BEV by a deformable DETR
// decoder, with its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <memory>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/lane_hungarian_assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/bev_range.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/models/heads/lane_detection_transformer.h"
#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/heads/object_head.h"

namespace olv2 {

// Defaults: of the keys a config may omit, the original class's; of the others, the full
// baseline_large config's.
struct LcDeformableDetrHeadOptions : ObjectHeadOptions {
  int64_t num_classes = 1;  // sigmoid classification, no background output
  int64_t in_channels = 256;
  int64_t num_query = 100;
  int64_t bev_h = 100;
  int64_t bev_w = 200;
  int64_t code_size = 15;  // 5 control points x (x, y, z)
  int64_t embed_dims = 256;
  int64_t num_decoder_layers = 6;
  int64_t num_heads = 8;
  int64_t num_levels = 1;  // the BEV is the only level
  int64_t num_points = 4;
  int64_t feedforward_channels = 512;
  double ffn_drop = 0.1;
  double attention_dropout = 0.1;
  double msda_dropout = 0.1;
  int64_t num_reg_fcs = 2;
  std::vector<double> code_weights = std::vector<double>(15, 1.0);
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};
  bool sync_cls_avg_factor = false;
  // Any registered loss of class scores and of lane points (in metres); a `loss_iou` is accepted
  // and unused, as the original configures one and never evaluates it.
  std::shared_ptr<const Loss> loss_cls = weighted_loss<FocalLoss>(1.5);
  std::shared_ptr<const Loss> loss_bbox = weighted_loss<L1Loss>(5.0);
  // `train_cfg.assigner` (the detector's `train_cfg.pts.assigner`, merged in as mmdet does): any
  // registered lane assigner; the original's LaneHungarianAssigner by default.
  std::shared_ptr<const AssignerOptions> assigner = [] {
    auto assigner = std::make_shared<LaneHungarianAssignerOptions>();
    auto cls_cost = std::make_shared<FocalLossCost>();
    cls_cost->weight = 1.5;
    assigner->cls_cost = cls_cost;
    auto reg_cost = std::make_shared<LaneL1Cost>();
    reg_cost->weight = 0.0075;
    assigner->reg_cost = reg_cost;
    assigner->normalize = false;  // costs in metres
    return assigner;
  }();

  // OpenLane-V2's `type: LCDeformableDETRHead` with its PerceptionTransformer's lane decoder
  // (MultiheadAttention + CustomMSDeformableAttention layers on the one BEV level).
  static Schema schema();
  static LcDeformableDetrHeadOptions from_config(const ConfigNode& section);
  std::shared_ptr<ObjectHeadImpl> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kLanes; }
  std::optional<BevRange> bev_range() const override { return pc_range; }
  int64_t lane_point_dims() const override { return 3; }
  int64_t decoder_layers() const override { return num_decoder_layers; }
};

// OpenLane-V2 `LCDeformableDETRHead`: lane centerlines as Bezier control points decoded from
// the BEV features by a deformable DETR decoder, one classification and one regression branch
// per decoder layer. Parameters `code_weights` (not trained), `transformer.*`,
// `cls_branches.i.*`, `reg_branches.i.*`, `query_embedding`.
class LcDeformableDetrHeadImpl : public ObjectHeadImpl {
 public:
  explicit LcDeformableDetrHeadImpl(const LcDeformableDetrHeadOptions& options);

  // bev_feats [B, bev_h*bev_w, in_channels] -> the outputs of every decoder layer: logits,
  // control points in metres [L, B, Q, code_size], decoder states.
  HeadOutputs forward(const at::Tensor& bev_feats);
  // The one level, the BEV [B, in_channels, bev_h, bev_w], as forward(bev_feats); the geometry
  // is not needed.
  HeadOutputs forward(const std::vector<at::Tensor>& levels,
                      const DetrImageGeometry& geometry) override;

  // Losses of every decoder layer against per-sample GT lanes ([G, code_size] metres) and
  // labels ([G]): `loss_lane_cls`, `loss_lane_reg` (last layer), then `d{i}.loss_lane_cls`,
  // `d{i}.loss_lane_reg`. `reduce_mean` averages a count over the ranks (identity when empty).
  DetrHeadLosses loss(const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_lanes,
                      const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
                      const std::function<double(double)>& reduce_mean = {}) const override;

  // Matching of one decoder layer's predictions of one sample (cls [Q, C], lanes [Q, R]).
  AssignResult assign(const at::Tensor& cls_scores, const at::Tensor& lanes_preds,
                      const at::Tensor& gt_lanes, const at::Tensor& gt_labels) const;

  // The last layer's predictions of one sample, all queries in order: lanes in metres (not
  // clamped) and sigmoid scores.
  Detections decode(const HeadOutputs& outputs, int64_t sample,
                    std::pair<int64_t, int64_t> img_shape,
                    const std::vector<double>& scale_factor) const override;

  // The original's `init_weights`: the transformer's init and the classification prior
  // (final bias -log(99)); the branches' other layers and the query embedding keep PyTorch's.
  void reset_parameters();
  void set_dropout(double p) override { transformer_->set_dropout(p); }
  const LcDeformableDetrHeadOptions& options() const { return options_; }
  const at::Tensor& code_weights() const { return code_weights_; }

 private:
  LaneSetLossSettings loss_settings() const;

  LcDeformableDetrHeadOptions options_;
  std::shared_ptr<const Assigner> assigner_;  // built once from `options_.assigner`
  PerceptionTransformer transformer_{nullptr};
  at::Tensor code_weights_;
  torch::nn::ModuleList cls_branches_{nullptr};
  torch::nn::ModuleList reg_branches_{nullptr};
  torch::nn::Embedding query_embedding_{nullptr};
};
TORCH_MODULE(LcDeformableDetrHead);

}  // namespace olv2
