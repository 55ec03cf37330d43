#pragma once
// OpenLane-V2's `RelationshipHead`: the MLP relation head of `BaselineLarge`, with its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <string>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/layers/mlp.h"

namespace olv2 {

struct RelationshipHeadOptions : RelationHeadOptions {
  int64_t in_channels_o1 = 256;
  int64_t in_channels_o2 = 256;
  bool shared_param = true;  // one MLP for both objects, and the first object's assignment
  // LaneSegNet's loss: only the pairs of matched queries whose GT lies inside the adjacency
  // (not a pedestrian crossing appended after the lane segments), the focal loss summed over
  // them and divided by their number of non-edges. Otherwise every pair, a plain mean.
  bool matched_pairs_only = false;
  std::shared_ptr<const Loss> loss_rel = std::make_shared<FocalLoss>();  // of class scores

  // OpenLane-V2's `type: RelationshipHead`; in_channels_o2 defaults to in_channels_o1.
  static Schema schema() { return schema_for("RelationshipHead"); }
  // LaneSegNet's `RelationshipHead` (registered as `lanesegnet.RelationshipHead`): the same keys,
  // matched_pairs_only set.
  static RelationshipHeadOptions matched_pairs_from_config(const ConfigNode& section);
  // The same keys under another type name (TopoNet's `SingleLayerRelationshipHead`).
  static Schema schema_for(const std::string& type);
  static RelationshipHeadOptions from_config(const ConfigNode& section);
  std::shared_ptr<RelationHeadImpl> build() const override;
};

// OpenLane-V2 `RelationshipHead` (`lclc_head`, `lcte_head`): embeds each object of the last
// decoder layer with `MLP_o1` / `MLP_o2` (in -> in -> in -> 128) and scores every ordered pair
// with `classifier` (256 -> 256 -> 256 -> 1). The widths 128 and 256 are the original's
// constants, whatever the input widths. TopoNet's `SingleLayerRelationshipHead` is the same
// head applied to one layer's states (score_pairs), with the same loss.
class RelationshipHeadImpl : public RelationHeadImpl {
 public:
  explicit RelationshipHeadImpl(const RelationshipHeadOptions& options);

  // o1_hs [L, B, Q1, C1], o2_hs [L, B, Q2, C2] decoder states -> logits [B, Q1, Q2, 1] of the
  // last layer.
  at::Tensor forward(const at::Tensor& o1_hs, const at::Tensor& o2_hs) override;
  // One layer: o1 [B, Q1, C1], o2 [B, Q2, C2] -> logits [B, Q1, Q2, 1].
  at::Tensor score_pairs(const at::Tensor& o1, const at::Tensor& o2);

  // Sigmoid focal loss of the logits against the GT adjacency ([G1, G2] 0/1 per sample) carried
  // to the matched queries by the last-layer assignment of each object (one result per sample):
  // a plain mean over all pairs, or over the matched pairs (matched_pairs_only).
  at::Tensor loss(const at::Tensor& logits, const std::vector<AssignResult>& o1_assign,
                  const std::vector<AssignResult>& o2_assign,
                  const std::vector<at::Tensor>& gt_adjacency) const override;

  // The sigmoid of the logits [B, Q1, Q2].
  at::Tensor probabilities(const at::Tensor& logits) const override;

 private:
  at::Tensor matched_pairs_loss(const at::Tensor& scores, const std::vector<AssignResult>& o1,
                                const std::vector<AssignResult>& o2,
                                const std::vector<at::Tensor>& gt_adjacency) const;

  RelationshipHeadOptions options_;
  Mlp mlp_o1_{nullptr};
  Mlp mlp_o2_{nullptr};
  Mlp classifier_{nullptr};
};
TORCH_MODULE(RelationshipHead);

}  // namespace olv2
