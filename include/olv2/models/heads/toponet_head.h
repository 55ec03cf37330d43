#pragma once
// TopoNet's lane head `TopoNetHead`: lanes decoded from the BEV by the scene-graph decoder, with
// the lane-lane and lane-traffic-element relations of every decoder layer, and its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
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
struct TopoNetHeadOptions : ObjectHeadOptions {
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
  std::shared_ptr<ObjectHeadImpl> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kLanes; }
  std::optional<BevRange> bev_range() const override { return pc_range; }
  int64_t lane_point_dims() const override { return pts_dim; }
  int64_t decoder_layers() const override { return transformer.num_layers; }
  bool predicts_relations() const override { return true; }
};

// TopoNet `TopoNetHead`, a lane head that decodes with the traffic elements and predicts the
// relations itself. The traffic-element head's decoder states of each layer, embedded by
// `te_embed_branches.i` (not detached), and its logits of that layer feed the decoder layer of
// the same index. Parameters `code_weights` (not trained), `transformer.*`, `cls_branches.i.*`,
// `reg_branches.i.*`, `lclc_branches.i.*`, `lcte_branches.i.*`, `te_embed_branches.i.*`,
// `query_embedding`.
class TopoNetHeadImpl : public ObjectHeadImpl {
 public:
  explicit TopoNetHeadImpl(const TopoNetHeadOptions& options);

  // levels: the BEV [B, E, bev_h, bev_w]; the traffic-element head's decoder states and logits
  // of every layer -> lanes (logits [L, B, Q, C], metres [L, B, Q, code_size], states) and the
  // relations `lclc`, `lcte`.
  HeadOutputs forward_with_context(const std::vector<at::Tensor>& levels,
                                   const DetrImageGeometry& geometry,
                                   const TrafficElementContext& traffic_elements) override;
  // Losses of every decoder layer: `loss_lane_cls`, `loss_lane_reg`, `loss_lclc_rel`,
  // `loss_lcte_rel` (last layer), then `d{i}.*`, against per-sample GT lanes
  // ([G, code_size] metres; with pts_dim 2, 3-D points are taken as their (x, y)) and labels
  // ([G]), the relations against `relations`. `reduce_mean` averages a count over the ranks.
  DetrHeadLosses loss_with_relations(
      const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_lanes,
      const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
      const RelationTargets& relations,
      const std::function<double(double)>& reduce_mean) const override;
  // Without the traffic elements there is nothing to decode with: an error naming the head.
  HeadOutputs forward(const std::vector<at::Tensor>& levels,
                      const DetrImageGeometry& geometry) override;
  DetrHeadLosses loss(const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_objects,
                      const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
                      const std::function<double(double)>& reduce_mean) const override;
  // The last layer's lanes [Q, code_size] in metres and their sigmoid scores [Q, C].
  Detections decode(const HeadOutputs& outputs, int64_t sample,
                    std::pair<int64_t, int64_t> img_shape,
                    const std::vector<double>& scale_factor) const override;

  // The original's `init_weights`: the transformer's init and the classification prior; the
  // branches' other layers and the query embedding keep PyTorch's.
  void reset_parameters();
  void set_dropout(double p) override;
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
