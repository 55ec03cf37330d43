#pragma once
// TopoNet's lane head `TopoNetHead`: lanes decoded from the BEV by the scene-graph decoder, with
// the lane-lane and lane-traffic-element relations of every decoder layer, and its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

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
#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/heads/object_head.h"
#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/heads/toponet_transformer.h"

namespace olv2 {

// Defaults: of the keys a config may omit, the original class's; of the others, the subset-A
// config's.
struct TopoNetHeadOptions {
  int64_t num_classes = 1;  // sigmoid classification, no background output
  int64_t in_channels = 256;
  int64_t num_query = 100;
  int64_t bev_h = 30;
  int64_t bev_w = 30;
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};
  int64_t pts_dim = 3;     // 3 on subset A; 2 on subset B, whose lanes are (x, y)
  int64_t code_size = 33;  // 11 points x pts_dim
  std::vector<double> code_weights = std::vector<double>(33, 1.0);
  int64_t num_reg_fcs = 2;
  bool sync_cls_avg_factor = false;
  TopoNetTransformerOptions transformer;
  // `lclc_head` / `lcte_head`: TopoNet's SingleLayerRelationshipHead, one per decoder layer.
  RelationshipHeadOptions lclc_head;
  RelationshipHeadOptions lcte_head;
  // Any registered loss of class scores and of lane points (in metres).
  std::shared_ptr<const Loss> loss_cls;
  std::shared_ptr<const Loss> loss_bbox;
  // `train_cfg.assigner` (the detector's `train_cfg.lane.assigner`, merged in as mmdet does):
  // any registered lane assigner; TopoNet's LaneHungarianAssigner3D by default.
  std::shared_ptr<const AssignerOptions> assigner;

  TopoNetHeadOptions();
  // TopoNet's `type: TopoNetHead` with its TopoNetTransformerDecoderOnly (a TopoNetSGNNDecoder of
  // SGNNDecoderLayers: MultiheadAttention, CustomMSDeformableAttention on the BEV, FFN_SGNN),
  // its relation heads and `bbox_coder: {type: LanePseudoCoder}`.
  static Schema schema();
  static TopoNetHeadOptions from_config(const ConfigNode& section);
};

// Everything one forward of the head computes, every decoder layer's.
struct TopoNetHeadOutputs {
  HeadOutputs lanes;  // logits [L, B, Q, C], lanes in metres [L, B, Q, code_size], states
  at::Tensor lclc;    // [L, B, Q, Q, 1] lane-lane relation logits
  at::Tensor lcte;    // [L, B, Q, T, 1] lane-traffic-element relation logits
};

// TopoNet `TopoNetHead`. The traffic-element head's decoder states of each layer, embedded by
// `te_embed_branches.i` (not detached), and its logits of that layer feed the decoder layer of
// the same index. Parameters `code_weights` (not trained), `transformer.*`, `cls_branches.i.*`,
// `reg_branches.i.*`, `lclc_branches.i.*`, `lcte_branches.i.*`, `te_embed_branches.i.*`,
// `query_embedding`.
class TopoNetHeadImpl : public torch::nn::Module {
 public:
  explicit TopoNetHeadImpl(const TopoNetHeadOptions& options);

  // bev_feats [B, bev_h*bev_w, E]; te_states [L, B, T, E] and te_cls_scores [L, B, T, C]: the
  // traffic-element head's decoder states and logits of every layer.
  TopoNetHeadOutputs forward(const at::Tensor& bev_feats, const at::Tensor& te_states,
                             const at::Tensor& te_cls_scores);

  // Losses of every decoder layer: `loss_lane_cls`, `loss_lane_reg`, `loss_lclc_rel`,
  // `loss_lcte_rel` (last layer), then `d{i}.*`, against per-sample GT lanes
  // ([G, code_size] metres; with pts_dim 2, 3-D points are taken as their (x, y)), labels ([G]),
  // lane-lane ([G, G]) and lane-traffic-element
  // ([G, G_te]) adjacency, with the traffic-element head's matching of every layer
  // (`te_assign[layer][sample]`). `reduce_mean` averages a count over the ranks.
  DetrHeadLosses loss(const TopoNetHeadOutputs& outputs, const std::vector<at::Tensor>& gt_lanes,
                      const std::vector<at::Tensor>& gt_labels,
                      const std::vector<at::Tensor>& gt_lclc,
                      const std::vector<at::Tensor>& gt_lcte,
                      const std::vector<std::vector<AssignResult>>& te_assign,
                      const std::function<double(double)>& reduce_mean = {}) const;

  // The original's `init_weights`: the transformer's init and the classification prior; the
  // branches' other layers and the query embedding keep PyTorch's.
  void reset_parameters();
  void set_dropout(double p);
  const TopoNetHeadOptions& options() const { return options_; }

 private:
  LaneSetLossSettings loss_settings() const;

  TopoNetHeadOptions options_;
  std::shared_ptr<const Assigner> assigner_;  // built once from `options_.assigner`
  TopoNetTransformer transformer_{nullptr};
  at::Tensor code_weights_;
  torch::nn::ModuleList cls_branches_{nullptr};
  torch::nn::ModuleList reg_branches_{nullptr};
  torch::nn::ModuleList lclc_branches_{nullptr};
  torch::nn::ModuleList lcte_branches_{nullptr};
  torch::nn::ModuleList te_embed_branches_{nullptr};
  torch::nn::Embedding query_embedding_{nullptr};
};
TORCH_MODULE(TopoNetHead);

}  // namespace olv2
