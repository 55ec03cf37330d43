#include "olv2/models/heads/topology_head.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema TopologyHeadOptions::schema() {
  Schema schema = typed_schema("TopologyHead");
  schema.required("in_channels", Schema::integer())
      .required("hidden_channels", Schema::integer())
      .required("out_channels", Schema::integer())
      .required("num_layers", Schema::integer())
      .required("loss_cls", loss_registry().schema());
  return schema;
}

TopologyHeadOptions TopologyHeadOptions::from_config(const ConfigNode& section) {
  TopologyHeadOptions o;
  o.in_channels = section.at("in_channels").as_int();
  o.hidden_channels = section.at("hidden_channels").as_int();
  o.out_channels = section.at("out_channels").as_int();
  o.num_layers = section.at("num_layers").as_int();
  o.loss_cls =
      read_for_kind(loss_registry(), section, "loss_cls", PredictionKind::kClassScores, o.loss_cls);
  return o;
}

std::shared_ptr<RelationHeadImpl> TopologyHeadOptions::build() const {
  return std::make_shared<TopologyHeadImpl>(*this);
}

at::Tensor TopologyHeadImpl::probabilities(const at::Tensor& probs) const {
  return probs[-1].squeeze(-1);
}

TopologyHeadImpl::TopologyHeadImpl(const TopologyHeadOptions& options) : options_(options) {
  mlp_ = register_module("mlp", Mlp(options.in_channels, options.hidden_channels,
                                    options.out_channels, options.num_layers));
}

at::Tensor TopologyHeadImpl::forward(const at::Tensor& rows, const at::Tensor& cols) {
  if (rows.size(-1) + cols.size(-1) != options_.in_channels) {
    throw runtime_error("TopologyHead: row features (" + std::to_string(rows.size(-1)) +
                        ") + column features (" + std::to_string(cols.size(-1)) +
                        ") != in_channels " + std::to_string(options_.in_channels));
  }
  const int64_t num_rows = rows.size(-2);
  const int64_t num_cols = cols.size(-2);
  // [L, B, R, C, Er + Ec]: first half the row object, second half the column object.
  const at::Tensor pairs = torch::cat({rows.unsqueeze(3).expand({-1, -1, -1, num_cols, -1}),
                                       cols.unsqueeze(2).expand({-1, -1, num_rows, -1, -1})},
                                      -1);
  return mlp_(pairs).sigmoid();
}

at::Tensor TopologyHeadImpl::loss(const at::Tensor& probs,
                                  const std::vector<AssignResult>& row_assign,
                                  const std::vector<AssignResult>& col_assign,
                                  const std::vector<at::Tensor>& gt_adjacency) const {
  const at::Tensor last = probs[probs.size(0) - 1];  // [B, R, C, out]
  const int64_t batch = last.size(0);
  if (static_cast<int64_t>(row_assign.size()) != batch ||
      static_cast<int64_t>(col_assign.size()) != batch ||
      static_cast<int64_t>(gt_adjacency.size()) != batch) {
    throw runtime_error("TopologyHead loss: assignments or adjacency missing for a batch of " +
                        std::to_string(batch));
  }
  std::vector<at::Tensor> targets;
  for (int64_t b = 0; b < batch; ++b) {
    at::Tensor target = torch::zeros({last.size(1), last.size(2)}, last.options());
    const auto device = last.device();
    const at::Tensor rows = row_assign[b].pos_inds.to(device);
    const at::Tensor cols = col_assign[b].pos_inds.to(device);
    if (rows.numel() > 0 && cols.numel() > 0) {
      const at::Tensor adjacency =
          gt_adjacency[b]
              .to(device)
              .index_select(0, row_assign[b].pos_assigned_gt_inds.to(device))
              .index_select(1, col_assign[b].pos_assigned_gt_inds.to(device));
      target.index_put_({rows.unsqueeze(-1), cols.unsqueeze(0)}, adjacency.to(last.scalar_type()));
    }
    targets.push_back(target);
  }
  // Original behaviour: class 0 means "connected", so the target is 1 - adjacency.
  const at::Tensor labels = (1 - torch::stack(targets)).to(torch::kLong).reshape({-1});
  // Original behaviour: the focal loss takes the probabilities as logits (a double sigmoid).
  return options_.loss_cls->compute(last.reshape({-1, options_.out_channels}), labels, {},
                                    std::nullopt);
}

}  // namespace olv2
