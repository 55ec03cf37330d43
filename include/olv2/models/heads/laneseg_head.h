#pragma once
// LaneSegNet's lane-segment head `LaneSegHead`: lane segments (a centerline and its two
// boundaries with their line types) and their instance masks on the BEV, and its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/bev_range.h"
#include "olv2/losses/loss.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/heads/laneseg_transformer.h"

namespace olv2 {

// Defaults: of the keys a config may omit, the original class's; of the others (and of the
// losses whose class default is not supported, a softmax cross-entropy), the subset-A config's.
struct LaneSegHeadOptions {
  int64_t num_classes = 2;            // sigmoid classes: lane segment, pedestrian crossing
  int64_t num_lane_type_classes = 3;  // boundary line types: none, solid, dashed
  int64_t in_channels = 256;
  int64_t num_query = 200;
  int64_t bev_h = 30;
  int64_t bev_w = 30;
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};
  int64_t pts_dim = 3;
  int64_t code_size = 90;  // 3 lines x points_num x pts_dim
  std::vector<double> code_weights = std::vector<double>(90, 1.0);
  int64_t num_reg_fcs = 2;
  bool sync_cls_avg_factor = false;
  // Whether eval mode computes the last layer's masks too (training always does).
  bool pred_mask = false;
  LaneSegNetTransformerOptions transformer;
  // Any registered loss of class scores (`loss_cls`, `loss_lane_type`), of lane points in metres
  // (`loss_bbox`) and of mask logits (`loss_mask`, `loss_dice`).
  std::shared_ptr<const Loss> loss_cls;
  std::shared_ptr<const Loss> loss_bbox;
  std::shared_ptr<const Loss> loss_lane_type;
  std::shared_ptr<const Loss> loss_mask;
  std::shared_ptr<const Loss> loss_dice;
  // `train_cfg.assigner` (the detector's `train_cfg.lane.assigner`): any registered assigner of
  // lane segments; LaneSegmentHungarianAssigner3D with the subset-A costs by default.
  std::shared_ptr<const AssignerOptions> assigner;

  LaneSegHeadOptions();
  // LaneSegNet's `type: LaneSegHead` with its LaneSegNetTransformer (a LaneSegNetDecoder of
  // CustomDetrTransformerDecoderLayers: MultiheadAttention, LaneAttention on the BEV, FFN),
  // `with_box_refine: true` and `bbox_coder: {type: LaneSegmentPseudoCoder}`.
  static Schema schema();
  static LaneSegHeadOptions from_config(const ConfigNode& section);
  int64_t points_num() const { return transformer.points_num; }
};

// Every decoder layer's predictions (eval mode: the last layer's only, L = 1, its lanes decoded
// as the original's eval mode does: around the reference the layer refined, which adds its
// regression twice).
struct LaneSegmentOutputs {
  at::Tensor cls_scores;        // [L, B, Q, C] logits
  at::Tensor lanes;             // [L, B, Q, code_size] metres: centerline, left, right
  at::Tensor masks;             // [L, B, Q, bev_h, bev_w] logits; undefined in eval mode
                                // unless pred_mask
  at::Tensor left_type_scores;  // [L, B, Q, T] logits
  at::Tensor right_type_scores;
  at::Tensor query_states;  // [L, B, Q, E] every layer's, the relation head's input
  LaneSegNetDecoderOutputs decoder;
};

// One sample's ground truth: lane segments [G, code_size] metres (pedestrian crossings appended
// as segments of label 1), labels [G], boundary types [G] and instance masks [G, bev_h, bev_w].
struct LaneSegmentTargets {
  at::Tensor lanes;
  at::Tensor labels;
  at::Tensor left_types;
  at::Tensor right_types;
  at::Tensor masks;
};

// One sample's last-layer predictions, every query in order, as probabilities.
struct LaneSegmentDetections {
  at::Tensor lanes;              // [Q, code_size] metres
  at::Tensor scores;             // [Q, C] sigmoid
  at::Tensor left_type_scores;   // [Q, T] sigmoid
  at::Tensor right_type_scores;  // [Q, T] sigmoid
};

// LaneSegNet `LaneSegHead`. Per decoder layer: classes (`cls_branches.i`), the centerline
// refined by the decoder (`reg_branches.i`) and the boundaries' offset
// (`reg_branches_offset.i`), the boundaries' line types (`cls_left_type_branches.i`,
// `cls_right_type_branches.i`) and instance-mask logits, `mask_embed.i`(query state) dotted
// with each BEV cell's features. Parameters `transformer.*`, `code_weights` (not trained),
// `query_embedding`, then the branches.
class LaneSegHeadImpl : public torch::nn::Module {
 public:
  explicit LaneSegHeadImpl(const LaneSegHeadOptions& options);

  // bev [B, E, bev_h, bev_w] -> the predictions of every layer (train) or of the last (eval).
  LaneSegmentOutputs forward(const at::Tensor& bev);

  // Losses of every decoder layer, `loss_lane_cls`, `loss_lane_reg`, `loss_seg_dice`,
  // `loss_seg_mask`, `loss_lane_type` (last layer), then `d{i}.*`, with every layer's matching.
  // `reduce_mean` averages a count over the ranks (empty: one process).
  DetrHeadLosses loss(const LaneSegmentOutputs& outputs,
                      const std::vector<LaneSegmentTargets>& targets,
                      const std::function<double(double)>& reduce_mean) const;

  LaneSegmentDetections decode(const LaneSegmentOutputs& outputs, int64_t sample) const;

  // The original's `init_weights`: the transformer's; the branches and the query embedding keep
  // PyTorch's.
  void reset_parameters();
  void set_dropout(double p);
  const LaneSegHeadOptions& options() const { return options_; }

 private:
  at::Tensor mask_logits(int64_t layer, const at::Tensor& states, const at::Tensor& bev) const;

  LaneSegHeadOptions options_;
  std::shared_ptr<const Assigner> assigner_;  // built once from `options_.assigner`
  LaneSegNetTransformer transformer_{nullptr};
  at::Tensor code_weights_;
  torch::nn::Embedding query_embedding_{nullptr};
  torch::nn::ModuleList cls_branches_{nullptr};
  torch::nn::ModuleList reg_branches_{nullptr};
  torch::nn::ModuleList reg_branches_offset_{nullptr};
  torch::nn::ModuleList cls_left_type_branches_{nullptr};
  torch::nn::ModuleList cls_right_type_branches_{nullptr};
  torch::nn::ModuleList mask_embed_{nullptr};
};
TORCH_MODULE(LaneSegHead);

}  // namespace olv2
