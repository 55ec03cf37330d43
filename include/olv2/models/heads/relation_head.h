#pragma once
// The relation heads: the topology between lanes (lclc) and between lanes and traffic elements
// (lcte) scored from the object heads' query states, one interface, chosen by `type`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/registry.h"

namespace olv2 {

class RelationHeadImpl : public torch::nn::Module {
 public:
  // rows [L, B, R, Er], cols [L, B, C, Ec]: the query states of every decoder layer of the two
  // object heads -> the head's scores, in the form its loss() and probabilities() take.
  virtual at::Tensor forward(const at::Tensor& rows, const at::Tensor& cols) = 0;

  // Focal loss of the scores against the ground-truth adjacency ([G_rows, G_cols] per sample)
  // carried to the matched queries by each object head's last-layer assignment (one per sample).
  virtual at::Tensor loss(const at::Tensor& scores, const std::vector<AssignResult>& row_assign,
                          const std::vector<AssignResult>& col_assign,
                          const std::vector<at::Tensor>& gt_adjacency) const = 0;

  // The last layer's relation probabilities [B, R, C].
  virtual at::Tensor probabilities(const at::Tensor& scores) const = 0;
};

// A relation head's options, as read from an `lclc_head` or `lcte_head` section.
struct RelationHeadOptions {
  virtual ~RelationHeadOptions() = default;
  virtual std::shared_ptr<RelationHeadImpl> build() const = 0;
};

// The heads an `lclc_head.type` or `lcte_head.type` may name.
const Registry<RelationHeadOptions>& relation_head_registry();

}  // namespace olv2
