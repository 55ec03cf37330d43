#pragma once
// MapTR's `MapTRHead` as LaneSegNet's Map Element Bucket configures it: areas (pedestrian
// crossings and road boundaries) as ordered point sets regressed from the BEV, and its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "olv2/assign/assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/bev_range.h"
#include "olv2/losses/loss.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/heads/maptr_transformer.h"

namespace olv2 {

// Defaults: of the keys a config may omit, the original class's; of the others (and of the
// losses whose class default is not supported, a softmax cross-entropy), the Map Element
// Bucket config's.
struct MapTrHeadOptions {
  int64_t num_classes = 2;  // sigmoid classes: pedestrian crossing, road boundary
  int64_t in_channels = 256;
  int64_t bev_h = 200;
  int64_t bev_w = 200;
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};
  int64_t num_vec = 50;             // point sets (instances) a frame
  int64_t num_pts_per_vec = 20;     // points each predicts
  int64_t num_pts_per_gt_vec = 20;  // points of each ground truth (predictions interpolated)
  int64_t pts_dim = 3;
  int64_t dir_interval = 1;  // the direction loss compares point k + dir_interval - point k
  std::vector<double> code_weights = {1.0, 1.0, 1.0};  // a parameter, never used in a loss
  int64_t num_cls_fcs = 2;  // the classification branch has num_cls_fcs - 1 hidden layers
  int64_t num_reg_fcs = 2;
  bool sync_cls_avg_factor = false;
  MapTrTransformerOptions transformer;
  // Any registered loss of class scores (`loss_cls`), of points in metres (`loss_bbox`) and of
  // point directions (`loss_dir`).
  std::shared_ptr<const Loss> loss_cls;
  std::shared_ptr<const Loss> loss_bbox;
  std::shared_ptr<const Loss> loss_dir;
  // `train_cfg.assigner` (the detector's `train_cfg.area.assigner`): any registered assigner of
  // point sets; MapTRAssigner with the config's costs by default.
  std::shared_ptr<const AssignerOptions> assigner;

  MapTrHeadOptions();
  // MapTR's `type: MapTRHead` with its MapTRTransformerDecoderOnly (a MapTRDecoder of
  // DetrTransformerDecoderLayers: MultiheadAttention, CustomMSDeformableAttention on the BEV,
  // FFN), `with_box_refine: true` and `bbox_coder: {type: AreaPseudoCoder}`. `num_query` is
  // accepted and unused (the head has num_vec * num_pts_per_vec queries), as are
  // `positional_encoding` (mmdet's DETRHead only checks that 2 num_feats = embed_dims) and
  // `loss_iou` (built, never evaluated).
  static Schema schema();
  static MapTrHeadOptions from_config(const ConfigNode& section);
  int64_t num_queries() const { return num_vec * num_pts_per_vec; }
};

// Every decoder layer's predictions.
struct MapTrOutputs {
  at::Tensor cls_scores;  // [L, B, V, C] logits, each instance's points' states averaged
  at::Tensor points;      // [L, B, V, P, pts_dim] metres
  MapTrDecoderOutputs decoder;
};

// One sample's ground truth: areas [G, num_pts_per_gt_vec, pts_dim] metres and labels [G]
// (category - 1).
struct AreaTargets {
  at::Tensor points;
  at::Tensor labels;
};

// One sample's last-layer predictions, every instance in order (AreaPseudoCoder).
struct AreaDetections {
  at::Tensor points;  // [V, P, pts_dim] metres
  at::Tensor scores;  // [V, C] sigmoid
};

// MapTR `shift_fixed_num_sampled_points`: every order a GT point set may be drawn in, [G, K, K,
// D] float32 for sets [G, K, D] of K points. A polygon (first point equal to the last) in each of
// its K rotations, closed again; a polyline as drawn and reversed, then K - 2 orders at -10000
// that no prediction matches.
at::Tensor point_set_orders(const at::Tensor& areas);

// MapTR `MapTRHead`. Queries are instance embeddings plus point embeddings (`instance_embedding`
// [V, 2E], `pts_embedding` [P, 2E], summed into V * P queries); per decoder layer the class of
// each instance (`cls_branches.i` on its points' mean state) and each point (`reg_branches.i`,
// scaled from [0, 1] to pc_range without a sigmoid, as the original does: the sigmoid only
// refines the decoder's references). Parameters `code_weights` (not trained), `transformer.*`,
// the branches, the embeddings.
class MapTrHeadImpl : public torch::nn::Module {
 public:
  explicit MapTrHeadImpl(const MapTrHeadOptions& options);

  // bev_feats [B, bev_h * bev_w, E] -> every layer's predictions.
  MapTrOutputs forward(const at::Tensor& bev_feats);

  // Losses of every decoder layer, `loss_cls`, `loss_reg`, `loss_dir` (last layer), then
  // `d{i}.loss_cls`, `d{i}.loss_pts`, `d{i}.loss_dir` (the original's names), with every layer's
  // matching. `reduce_mean` averages a count over the ranks (empty: one process).
  DetrHeadLosses loss(const MapTrOutputs& outputs, const std::vector<AreaTargets>& targets,
                      const std::function<double(double)>& reduce_mean) const;

  AreaDetections decode(const MapTrOutputs& outputs, int64_t sample) const;

  // The original's `init_weights`: the transformer's, then each classification branch's last
  // bias at the prior 0.01; the regression branches and the embeddings keep PyTorch's.
  void reset_parameters();
  void set_dropout(double p);
  const MapTrHeadOptions& options() const { return options_; }

 private:
  MapTrHeadOptions options_;
  std::shared_ptr<const Assigner> assigner_;  // built once from `options_.assigner`
  at::Tensor code_weights_;
  MapTrTransformer transformer_{nullptr};
  torch::nn::ModuleList cls_branches_{nullptr};
  torch::nn::ModuleList reg_branches_{nullptr};
  torch::nn::Embedding instance_embedding_{nullptr};
  torch::nn::Embedding pts_embedding_{nullptr};
};
TORCH_MODULE(MapTrHead);

}  // namespace olv2
