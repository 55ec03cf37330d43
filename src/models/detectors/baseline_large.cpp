#include "olv2/models/detectors/baseline_large.h"

#include <torch/torch.h>

#include "olv2/assign/assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/util/collective.h"

namespace olv2 {

const std::vector<std::string> kBaselineLargeCheckpointableStages{"extract_feat",
                                                                  "bev_constructor"};

Schema BaselineLargeOptions::schema() {
  Schema box_train_cfg = Schema::map();
  box_train_cfg.required("assigner", assigner_registry().schema());
  Schema pts = Schema::map();
  pts.required("assigner", assigner_registry().schema())
      .optional("grid_size", integers_schema())
      .optional("voxel_size", numbers_schema())
      .optional("point_cloud_range", numbers_schema())
      .optional("out_size_factor", Schema::integer());
  Schema train_cfg = Schema::map();
  train_cfg.required("pts", pts);
  Schema schema = typed_schema("BaselineLarge");
  schema.optional("video_test_mode", Schema::boolean())
      .required("img_backbone", backbone_registry().schema())
      .required("img_neck", neck_registry().schema())
      .required("bev_constructor", bev_constructor_registry().schema())
      .required("bbox_head", traffic_element_head_registry().schema())
      .required("pts_bbox_head", lane_head_registry().schema())
      .required("lclc_head", relation_head_registry().schema())
      .required("lcte_head", relation_head_registry().schema())
      .required("bbox_train_cfg", box_train_cfg)
      .required("train_cfg", train_cfg)
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional("checkpoint", checkpoint_stages_schema(kBaselineLargeCheckpointableStages));
  return schema;
}

BaselineLargeOptions BaselineLargeOptions::from_config(const ConfigNode& model) {
  validate_config(model, schema());
  BaselineLargeOptions o;
  o.img_backbone = backbone_registry().read(model.at("img_backbone"));
  o.img_neck = neck_registry().read(model.at("img_neck"));
  o.bev_constructor = bev_constructor_registry().read(model.at("bev_constructor"));
  o.bbox_head = read_traffic_element_head(
      head_with_assigner(model.at("bbox_head"), model.at("bbox_train_cfg").at("assigner")));
  o.pts_bbox_head = read_lane_head(head_with_assigner(
      model.at("pts_bbox_head"), model.at("train_cfg").at("pts").at("assigner")));
  o.lclc_head = relation_head_registry().read(model.at("lclc_head"));
  o.lcte_head = relation_head_registry().read(model.at("lcte_head"));
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> BaselineLargeOptions::build() const {
  return std::make_shared<BaselineLargeImpl>(*this);
}

BaselineLargeImpl::BaselineLargeImpl(const BaselineLargeOptions& options)
    : TopologyDetectorImpl("BaselineLarge", options.checkpoint, "bev_constructor"),
      options_(options) {
  // Registration order = the original's state-dict order.
  lane_head_ = register_module("pts_bbox_head", options.pts_bbox_head->build());
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  bev_constructor_ = register_module(
      "bev_constructor", options.bev_constructor->build(checkpoint_listed("bev_constructor")));
  traffic_element_head_ = register_module("bbox_head", options.bbox_head->build());
  lclc_head_ = register_module("lclc_head", options.lclc_head->build());
  lcte_head_ = register_module("lcte_head", options.lcte_head->build());
}

std::pair<int64_t, int64_t> BaselineLargeImpl::traffic_element_input_shape(
    const Batch& batch) const {
  return {batch.images.size(3), batch.images.size(4)};
}

DetectorLosses BaselineLargeImpl::compose_losses(const DetectorOutputs& out, const Batch& batch) {
  DetectorLosses result;
  DetrHeadLosses lc = lane_head_->loss(out.lanes, batch.gt_lc, batch.gt_lc_labels,
                                       out.lane_geometry, all_reduce_mean);
  for (auto& [name, value] : lc.losses) result.losses.emplace_back("lane_head." + name, value);
  result.lane_assign = std::move(lc.assign_results);
  const std::vector<AssignResult>& lanes = result.lane_assign.back();
  result.losses.emplace_back("lclc_head.loss_rel",
                             lclc_head_->loss(out.lclc, lanes, lanes, batch.gt_topology_lclc));

  DetrHeadLosses te =
      traffic_element_head_->loss(out.traffic_elements, batch.gt_te, batch.gt_te_labels,
                                  out.traffic_element_geometry, all_reduce_mean);
  result.traffic_element_assign = std::move(te.assign_results);
  LossMap te_losses;
  for (auto& [name, value] : te.losses) te_losses.emplace_back("bbox_head." + name, value);
  te_losses.emplace_back("lcte_head.loss_rel",
                         lcte_head_->loss(out.lcte, lanes, result.traffic_element_assign.back(),
                                          batch.gt_topology_lcte));
  // As the original: without any traffic element in the batch their losses stay in the graph
  // multiplied by zero.
  int64_t num_te = 0;
  for (const at::Tensor& boxes : batch.gt_te) num_te += boxes.size(0);
  for (auto& [name, value] : te_losses) {
    result.losses.emplace_back(name, num_te == 0 ? value * 0 : value);
  }
  return result;
}

}  // namespace olv2
