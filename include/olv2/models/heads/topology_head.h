#pragma once
// OpenLane-V2's `TopologyHead`: the MLP relation head of `Baseline`, with its options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/models/heads/relation_head.h"
#include "olv2/models/layers/mlp.h"

namespace olv2 {

struct TopologyHeadOptions : RelationHeadOptions {
  int64_t in_channels = 128;  // row and column embeddings concatenated
  int64_t hidden_channels = 128;
  int64_t out_channels = 1;
  int64_t num_layers = 3;
  std::shared_ptr<const Loss> loss_cls = weighted_loss<FocalLoss>(2.0);  // of class scores

  // OpenLane-V2's `type: TopologyHead` (every key required).
  static Schema schema();
  static TopologyHeadOptions from_config(const ConfigNode& section);
  std::shared_ptr<RelationHeadImpl> build() const override;
};

// Scores every (row object, column object) pair as a directed relation:
// lane->lane (lclc) or lane->traffic element (lcte). Parameters
// `mlp.layers.{0..num_layers-1}`.
class TopologyHeadImpl : public RelationHeadImpl {
 public:
  explicit TopologyHeadImpl(const TopologyHeadOptions& options);

  // rows [L, B, R, Er], cols [L, B, C, Ec] decoder features (Er + Ec =
  // in_channels)
  // -> probabilities [L, B, R, C, out_channels], one per decoder layer.
  at::Tensor forward(const at::Tensor& rows, const at::Tensor& cols) override;

  // Focal loss of the last layer's probabilities against the GT adjacency
  // ([n_rows_gt, n_cols_gt] per sample) carried over to the matched queries;
  // `row_assign` and `col_assign` hold one result per sample (of the last
  // decoder layer).
  at::Tensor loss(const at::Tensor& probs, const std::vector<AssignResult>& row_assign,
                  const std::vector<AssignResult>& col_assign,
                  const std::vector<at::Tensor>& gt_adjacency) const override;

  // The last layer's probabilities [B, R, C] (out_channels 1).
  at::Tensor probabilities(const at::Tensor& probs) const override;

 private:
  TopologyHeadOptions options_;
  Mlp mlp_{nullptr};
};
TORCH_MODULE(TopologyHead);

}  // namespace olv2
