#include "olv2/models/detectors/toponet.h"

#include <torch/torch.h>

#include <utility>

#include "olv2/assign/assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/detectors/multi_view_features.h"
#include "olv2/models/detectors/toponet_predictions.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/models/heads/toponet_head.h"
#include "olv2/models/necks/fpn.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

// TopoNet's BEVFormer modules are its own copies, which its configs name as BEVFormer's.
const char* const kTopoNetScope = "toponet";

}  // namespace

TopoNetOptions::TopoNetOptions()
    : img_backbone(std::make_shared<ResNetOptions>()),
      img_neck(std::make_shared<FpnOptions>()),
      bev_constructor(toponet_bevformer_constructer()),
      bbox_head(std::make_shared<TeDeformableDetrHeadOptions>()),
      lane_head(std::make_shared<TopoNetHeadOptions>()) {}

Schema TopoNetOptions::schema() {
  Schema head_train_cfg = Schema::map();
  head_train_cfg.required("assigner", assigner_registry().schema());
  Schema train_cfg = Schema::map();
  train_cfg.required("bbox", head_train_cfg).required("lane", head_train_cfg);
  Schema schema = typed_schema("TopoNet");
  schema.optional("video_test_mode", Schema::boolean())
      .required("img_backbone", backbone_registry().schema())
      .required("img_neck", neck_registry().schema())
      .required("bev_constructor", bev_constructor_registry().schema())
      .required("bbox_head", traffic_element_head_registry().schema())
      .required("lane_head", lane_head_registry().schema())
      .required("train_cfg", train_cfg)
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional("checkpoint", checkpoint_stages_schema(image_and_bev_stages()));
  return schema;
}

TopoNetOptions TopoNetOptions::from_config(const ConfigNode& model) {
  validate_config(model, schema());
  require_flag(model, "video_test_mode", false,
               "TopoNet trains and tests on single frames, without a previous BEV");
  TopoNetOptions o;
  o.img_backbone = backbone_registry().read(model.at("img_backbone"));
  o.img_neck = neck_registry().read(model.at("img_neck"));
  o.bev_constructor = bev_constructor_registry().read(model.at("bev_constructor"), kTopoNetScope);
  const ConfigNode& train_cfg = model.at("train_cfg");
  o.bbox_head = read_traffic_element_head(
      head_with_assigner(model.at("bbox_head"), train_cfg.at("bbox").at("assigner")));
  o.lane_head =
      read_lane_head(head_with_assigner(model.at("lane_head"), train_cfg.at("lane").at("assigner")),
                     /*with_traffic_elements=*/true);
  if (o.bbox_head->decoder_layers() != o.lane_head->decoder_layers()) {
    throw input_error(model.at("bbox_head").where() + ": " +
                      std::to_string(o.bbox_head->decoder_layers()) +
                      " traffic-element decoder layers, but each of the lane head's " +
                      std::to_string(o.lane_head->decoder_layers()) +
                      " reads the traffic-element layer of its index (the two num_layers must be "
                      "equal)");
  }
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> TopoNetOptions::build() const {
  return std::make_shared<TopoNetImpl>(*this);
}

TopoNetImpl::TopoNetImpl(const TopoNetOptions& options) : options_(options) {
  require_checkpointable(options.checkpoint, image_and_bev_stages());
  // Registration order = the original's state-dict order.
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  bev_constructor_ = register_module(
      "bev_constructor", options.bev_constructor->build(checkpoint_listed("bev_constructor")));
  bbox_head_ = register_module("bbox_head", options.bbox_head->build());
  lane_head_ = register_module("pts_bbox_head", options.lane_head->build());
}

bool TopoNetImpl::checkpoint_listed(const std::string& stage) const {
  return stage_listed(options_.checkpoint, stage);
}

TopoNetOutputs TopoNetImpl::forward(const Batch& batch) {
  require_multi_view_images(batch, "TopoNet");
  const at::Tensor& img = batch.images;
  TopoNetOutputs out;
  out.image_features = multi_view_features(*img_backbone_, *img_neck_, img,
                                           checkpoint_listed("extract_feat") && is_training());

  // The original's order: the traffic elements first, since the lane head reads them.
  FrontCameraInputs front =
      front_camera_inputs(out.image_features, batch, {img.size(3), img.size(4)});
  out.traffic_element_geometry = std::move(front.geometry);
  out.traffic_elements = bbox_head_->forward(front.levels, out.traffic_element_geometry);

  const at::Tensor bev = in_stage("olv2::stage::view_transformer", [&] {
    return bev_constructor_->forward(out.image_features, batch);
  });
  out.bev_features = bev.flatten(2).transpose(1, 2);  // [B, bev_h * bev_w, C]
  out.lanes = lane_head_->forward_with_context(
      {bev}, {}, {out.traffic_elements.query_states, out.traffic_elements.cls_scores});
  return out;
}

std::shared_ptr<ForwardOutputs> TopoNetImpl::forward_outputs(const Batch& batch) {
  return std::make_shared<TopoNetOutputs>(forward(batch));
}

DetectorLosses TopoNetImpl::losses_of(const ForwardOutputs& forward_outputs, const Batch& batch) {
  require_ground_truth(batch, "TopoNet");
  const TopoNetOutputs& outputs = outputs_as<TopoNetOutputs>(forward_outputs);
  const AutocastOff float32;
  HeadOutputs te_outputs = outputs.traffic_elements;
  te_outputs.cls_scores = te_outputs.cls_scores.to(at::kFloat);
  te_outputs.reg_preds = te_outputs.reg_preds.to(at::kFloat);
  DetrHeadLosses te = bbox_head_->loss(te_outputs, batch.gt_te, batch.gt_te_labels,
                                       outputs.traffic_element_geometry, all_reduce_mean);
  DetrHeadLosses lanes = lane_head_->loss_with_relations(
      outputs.lanes, batch.gt_lc, batch.gt_lc_labels, {},
      {batch.gt_topology_lclc, batch.gt_topology_lcte, te.assign_results}, all_reduce_mean);
  DetectorLosses result;
  for (auto& [name, value] : lanes.losses) result.losses.emplace_back("lane_head." + name, value);
  // As the original: without any traffic element in the batch their losses stay in the graph
  // multiplied by zero.
  int64_t num_te = 0;
  for (const at::Tensor& boxes : batch.gt_te) num_te += boxes.size(0);
  for (auto& [name, value] : te.losses) {
    result.losses.emplace_back("bbox_head." + name, num_te == 0 ? value * 0 : value);
  }
  result.lane_assign = std::move(lanes.assign_results);
  result.traffic_element_assign = std::move(te.assign_results);
  return result;
}

Batch TopoNetImpl::as_the_original_sees(const Batch& batch) const {
  return without_ego_motion(batch);
}

std::vector<FrameTestOutputs> TopoNetImpl::decode_outputs(const ForwardOutputs& forward_outputs,
                                                          const Batch& batch, bool rescale) const {
  const TopoNetOutputs& outputs = outputs_as<TopoNetOutputs>(forward_outputs);
  const at::Tensor lclc = outputs.lanes.lclc[-1].squeeze(-1).sigmoid();
  const at::Tensor lcte = outputs.lanes.lcte[-1].squeeze(-1).sigmoid();
  std::vector<FrameTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    const ImageMeta& meta = batch.metas[static_cast<size_t>(b)];
    std::vector<double> scale;
    if (rescale) scale.assign(meta.scale_factor.begin(), meta.scale_factor.end());
    FrameTestOutputs r;
    r.lc = lane_head_->decode(outputs.lanes, b, image_hw(meta.img_shape.at(0)), scale);
    r.te = bbox_head_->decode(outputs.traffic_elements, b, image_hw(meta.img_shape.at(0)), scale);
    r.te.objects = with_front_crop_offset(r.te.objects, meta);
    r.lclc = lclc[b];
    r.lcte = lcte[b];
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> TopoNetImpl::predictions_of(
    const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const {
  return toponet_frame_predictions(batch, decoded, options_.lane_head->lane_point_dims());
}

void TopoNetImpl::set_dropout(double p) {
  bev_constructor_->set_dropout(p);
  bbox_head_->set_dropout(p);
  lane_head_->set_dropout(p);
}

}  // namespace olv2
