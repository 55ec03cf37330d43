#include "olv2/models/detectors/baseline.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/collective.h"

namespace olv2 {

const std::vector<std::string> kBaselineCheckpointableStages{"extract_feat",
                                                             "img_view_transformer"};

Schema BaselineOptions::schema() {
  Schema schema = typed_schema("Baseline");
  schema.required("img_backbone", backbone_registry().schema())
      .required("img_neck", neck_registry().schema())
      .required("img_view_transformer", bev_constructor_registry().schema())
      .required("lc_head", lane_head_registry().schema())
      .required("te_head", traffic_element_head_registry().schema())
      .required("lclc_head", relation_head_registry().schema())
      .required("lcte_head", relation_head_registry().schema())
      .optional("train_cfg", Schema::open_map().nullable())
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional("checkpoint", checkpoint_stages_schema(kBaselineCheckpointableStages));
  return schema;
}

BaselineOptions BaselineOptions::from_config(const ConfigNode& model) {
  validate_config(model, schema());
  BaselineOptions o;
  o.img_backbone = backbone_registry().read(model.at("img_backbone"));
  o.img_neck = neck_registry().read(model.at("img_neck"));
  o.img_view_transformer = bev_constructor_registry().read(model.at("img_view_transformer"));
  o.lc_head = read_lane_head(model.at("lc_head"));
  o.te_head = read_traffic_element_head(model.at("te_head"));
  o.lclc_head = relation_head_registry().read(model.at("lclc_head"));
  o.lcte_head = relation_head_registry().read(model.at("lcte_head"));
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> BaselineOptions::build() const {
  return std::make_shared<BaselineImpl>(*this);
}

BaselineImpl::BaselineImpl(const BaselineOptions& options)
    : TopologyDetectorImpl("Baseline", options.checkpoint, "img_view_transformer"),
      options_(options) {
  // Registration order = the original's state-dict order.
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  bev_constructor_ = register_module(
      "img_view_transformer",
      options.img_view_transformer->build(checkpoint_listed("img_view_transformer")));
  lane_head_ = register_module("lc_head", options.lc_head->build());
  traffic_element_head_ = register_module("te_head", options.te_head->build());
  lclc_head_ = register_module("lclc_head", options.lclc_head->build());
  lcte_head_ = register_module("lcte_head", options.lcte_head->build());
}

std::pair<int64_t, int64_t> BaselineImpl::traffic_element_input_shape(const Batch& batch) const {
  const std::array<int64_t, 3>& padded = batch.metas.at(0).pad_shape.at(0);
  return {padded[0], padded[1]};
}

DetectorLosses BaselineImpl::compose_losses(const DetectorOutputs& out, const Batch& batch) {
  DetrHeadLosses lc = lane_head_->loss(out.lanes, batch.gt_lc, batch.gt_lc_labels,
                                       out.lane_geometry, all_reduce_mean);
  DetrHeadLosses te =
      traffic_element_head_->loss(out.traffic_elements, batch.gt_te, batch.gt_te_labels,
                                  out.traffic_element_geometry, all_reduce_mean);
  DetectorLosses result;
  for (auto& [name, value] : lc.losses) result.losses.emplace_back("lc_" + name, value);
  for (auto& [name, value] : te.losses) result.losses.emplace_back("te_" + name, value);
  result.lane_assign = std::move(lc.assign_results);
  result.traffic_element_assign = std::move(te.assign_results);
  const std::vector<AssignResult>& lanes = result.lane_assign.back();
  result.losses.emplace_back("topology_lclc_loss_cls",
                             lclc_head_->loss(out.lclc, lanes, lanes, batch.gt_topology_lclc));
  result.losses.emplace_back("topology_lcte_loss_cls",
                             lcte_head_->loss(out.lcte, lanes, result.traffic_element_assign.back(),
                                              batch.gt_topology_lcte));
  return result;
}

}  // namespace olv2
