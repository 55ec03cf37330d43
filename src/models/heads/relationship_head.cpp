#include "olv2/models/heads/relationship_head.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema RelationshipHeadOptions::schema_for(const std::string& type) {
  Schema schema = typed_schema(type);
  schema.required("in_channels_o1", Schema::integer())
      .optional("in_channels_o2", Schema::integer())
      .optional("shared_param", Schema::boolean())
      .optional("loss_rel", loss_registry().schema());
  return schema;
}

RelationshipHeadOptions RelationshipHeadOptions::from_config(const ConfigNode& section) {
  RelationshipHeadOptions o;
  o.in_channels_o1 = section.at("in_channels_o1").as_int();
  o.in_channels_o2 = section.get<int64_t>("in_channels_o2", o.in_channels_o1);
  o.shared_param = section.get<bool>("shared_param", o.shared_param);
  o.loss_rel =
      read_for_kind(loss_registry(), section, "loss_rel", PredictionKind::kClassScores, o.loss_rel);
  return o;
}

RelationshipHeadOptions RelationshipHeadOptions::matched_pairs_from_config(
    const ConfigNode& section) {
  RelationshipHeadOptions o = from_config(section);
  o.matched_pairs_only = true;
  return o;
}

std::shared_ptr<RelationHeadImpl> RelationshipHeadOptions::build() const {
  return std::make_shared<RelationshipHeadImpl>(*this);
}

at::Tensor RelationshipHeadImpl::probabilities(const at::Tensor& logits) const {
  return logits.sigmoid().squeeze(-1);
}
namespace {

constexpr int64_t kEmbeddingChannels = 128;
constexpr int64_t kClassifierChannels = 2 * kEmbeddingChannels;

// [Q1, Q2] adjacency of the matched query pairs, zero elsewhere.
at::Tensor relationship_target(int64_t num_o1, int64_t num_o2, const AssignResult& o1,
                               const AssignResult& o2, const at::Tensor& gt_adjacency,
                               const at::TensorOptions& options) {
  at::Tensor target = torch::zeros({num_o1, num_o2}, options);
  const auto device = options.device();
  const at::Tensor rows = o1.pos_inds.to(device);
  const at::Tensor cols = o2.pos_inds.to(device);
  if (rows.numel() == 0 || cols.numel() == 0) return target;
  const at::Tensor adjacency = gt_adjacency.to(device)
                                   .index_select(0, o1.pos_assigned_gt_inds.to(device))
                                   .index_select(1, o2.pos_assigned_gt_inds.to(device));
  target.index_put_({rows.unsqueeze(-1), cols.unsqueeze(0)}, adjacency.to(options.dtype()));
  return target;
}

}  // namespace

RelationshipHeadImpl::RelationshipHeadImpl(const RelationshipHeadOptions& options)
    : options_(options) {
  mlp_o1_ = register_module(
      "MLP_o1", Mlp(options.in_channels_o1, options.in_channels_o1, kEmbeddingChannels, 3));
  mlp_o2_ = options.shared_param
                ? mlp_o1_
                : Mlp(options.in_channels_o2, options.in_channels_o2, kEmbeddingChannels, 3);
  register_module("MLP_o2", mlp_o2_);
  classifier_ = register_module("classifier", Mlp(kClassifierChannels, kClassifierChannels, 1, 3));
}

at::Tensor RelationshipHeadImpl::forward(const at::Tensor& o1_hs, const at::Tensor& o2_hs) {
  return score_pairs(o1_hs[o1_hs.size(0) - 1], o2_hs[o2_hs.size(0) - 1]);
}

at::Tensor RelationshipHeadImpl::score_pairs(const at::Tensor& o1, const at::Tensor& o2) {
  const at::Tensor e1 = mlp_o1_(o1);  // [B, Q1, 128]
  const at::Tensor e2 = mlp_o2_(o2);  // [B, Q2, 128]
  const int64_t num_o1 = e1.size(1);
  const int64_t num_o2 = e2.size(1);
  // [B, Q1, Q2, 256]: first half the first object, second half the second.
  const at::Tensor pairs = torch::cat(
      {e1.unsqueeze(2).expand({-1, -1, num_o2, -1}), e2.unsqueeze(1).expand({-1, num_o1, -1, -1})},
      -1);
  return classifier_(pairs);
}

at::Tensor RelationshipHeadImpl::loss(const at::Tensor& logits,
                                      const std::vector<AssignResult>& o1_assign,
                                      const std::vector<AssignResult>& o2_assign,
                                      const std::vector<at::Tensor>& gt_adjacency) const {
  const at::Tensor scores = logits.to(torch::kFloat);  // [B, Q1, Q2, 1]
  const int64_t batch = scores.size(0);
  // Original behaviour: with shared parameters the first object's assignment serves both.
  const std::vector<AssignResult>& second = options_.shared_param ? o1_assign : o2_assign;
  if (static_cast<int64_t>(o1_assign.size()) != batch ||
      static_cast<int64_t>(second.size()) != batch ||
      static_cast<int64_t>(gt_adjacency.size()) != batch) {
    throw runtime_error("RelationshipHead loss: " + std::to_string(o1_assign.size()) + " and " +
                        std::to_string(second.size()) + " assignments, " +
                        std::to_string(gt_adjacency.size()) + " adjacencies for a batch of " +
                        std::to_string(batch));
  }
  if (options_.matched_pairs_only)
    return matched_pairs_loss(scores, o1_assign, second, gt_adjacency);
  std::vector<at::Tensor> targets;
  for (int64_t b = 0; b < batch; ++b) {
    targets.push_back(relationship_target(scores.size(1), scores.size(2), o1_assign[b], second[b],
                                          gt_adjacency[b], scores.options()));
  }
  // Original behaviour: class 0 is "connected", so the label is 1 - adjacency.
  const at::Tensor labels = (1 - torch::stack(targets)).to(torch::kLong).reshape({-1});
  return torch::nan_to_num(
      options_.loss_rel->compute(scores.reshape({-1, 1}), labels, {}, std::nullopt));
}

at::Tensor RelationshipHeadImpl::matched_pairs_loss(
    const at::Tensor& scores, const std::vector<AssignResult>& o1,
    const std::vector<AssignResult>& o2, const std::vector<at::Tensor>& gt_adjacency) const {
  const auto device = scores.device();
  std::vector<at::Tensor> logits, labels;
  for (size_t b = 0; b < o1.size(); ++b) {
    const at::Tensor adjacency = gt_adjacency[b].to(device);
    // Matches to GT outside the adjacency (pedestrian crossings) are dropped at both ends.
    const auto kept = [&](const AssignResult& a, int64_t gts) {
      const at::Tensor gt_inds = a.pos_assigned_gt_inds.to(device);
      const at::Tensor inside = gt_inds < gts;
      return std::make_pair(a.pos_inds.to(device).masked_select(inside),
                            gt_inds.masked_select(inside));
    };
    const auto [rows, row_gts] = kept(o1[b], adjacency.size(0));
    const auto [cols, col_gts] = kept(o2[b], adjacency.size(1));
    logits.push_back(
        scores[static_cast<int64_t>(b)].index_select(0, rows).index_select(1, cols).reshape(
            {-1, 1}));
    // Original behaviour: class 0 is "connected", so the label is 1 - adjacency.
    labels.push_back(
        1 -
        adjacency.index_select(0, row_gts).index_select(1, col_gts).reshape({-1}).to(torch::kLong));
  }
  const at::Tensor pairs = torch::cat(logits);
  const at::Tensor targets = torch::cat(labels);
  if (targets.numel() == 0) return pairs.sum() * 0;
  const double non_edges = static_cast<double>(targets.sum().item<int64_t>());
  return torch::nan_to_num(options_.loss_rel->compute(pairs, targets, {}, non_edges));
}

}  // namespace olv2
