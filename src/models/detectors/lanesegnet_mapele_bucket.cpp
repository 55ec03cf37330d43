#include "olv2/models/detectors/lanesegnet_mapele_bucket.h"

#include <torch/torch.h>

#include <utility>

#include "olv2/assign/assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/detectors/lanesegnet.h"
#include "olv2/models/detectors/map_element_bucket_predictions.h"
#include "olv2/models/detectors/multi_view_features.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/models/necks/fpn.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

// A head the config may leave out (absent or null).
const ConfigNode* optional_head(const ConfigNode& model, const char* key) {
  const ConfigNode* head = model.find(key);
  return head == nullptr || head->is_null() ? nullptr : head;
}

}  // namespace

LaneSegNetMapElementBucketOptions::LaneSegNetMapElementBucketOptions()
    : img_backbone(std::make_shared<ResNetOptions>()),
      img_neck(std::make_shared<FpnOptions>()),
      bev_constructor(toponet_bevformer_constructer()),
      lsls_head(lanesegnet_relation_head()),
      lste_head(lanesegnet_relation_head()),
      bbox_head(std::make_shared<TeDeformableDetrHeadOptions>()),
      area_head(MapTrHeadOptions()) {
  lane_head.num_classes = 1;
}

Schema LaneSegNetMapElementBucketOptions::schema() {
  Schema head_train_cfg = Schema::map();
  head_train_cfg.required("assigner", assigner_registry().schema());
  Schema train_cfg = Schema::map();
  train_cfg.required("lane", head_train_cfg)
      .optional("bbox", head_train_cfg)
      .optional("area", head_train_cfg);
  Schema schema = typed_schema("LaneSegNetMapElementBucket");
  schema.optional("video_test_mode", Schema::boolean())
      .required("img_backbone", backbone_registry().schema())
      .required("img_neck", neck_registry().schema())
      .required("bev_constructor", bev_constructor_registry().schema())
      .required("lane_head", LaneSegHeadOptions::schema())
      .optional("lsls_head", relation_head_registry().schema().nullable())
      .optional("bbox_head", traffic_element_head_registry().schema().nullable())
      .optional("lste_head", relation_head_registry().schema().nullable())
      .optional("area_head", MapTrHeadOptions::schema().nullable())
      .required("train_cfg", train_cfg)
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional("checkpoint", checkpoint_stages_schema(image_and_bev_stages()));
  return schema;
}

LaneSegNetMapElementBucketOptions LaneSegNetMapElementBucketOptions::from_config(
    const ConfigNode& model) {
  validate_config(model, schema());
  require_flag(model, "video_test_mode", false,
               "the Map Element Bucket trains and tests on single frames, without a previous BEV");
  LaneSegNetMapElementBucketOptions o;
  o.img_backbone = backbone_registry().read(model.at("img_backbone"));
  o.img_neck = neck_registry().read(model.at("img_neck"));
  o.bev_constructor =
      bev_constructor_registry().read(model.at("bev_constructor"), kLaneSegNetScope);
  const ConfigNode& train_cfg = model.at("train_cfg");
  // The train_cfg a present head needs.
  const auto head_train_cfg = [&](const ConfigNode& head, const char* key) -> const ConfigNode& {
    const ConfigNode* section = train_cfg.find(key);
    if (section == nullptr) {
      throw input_error(train_cfg.where() + ": `" + head.path() + "` needs train_cfg." + key +
                        ".assigner");
    }
    return section->at("assigner");
  };
  o.lane_head = LaneSegHeadOptions::from_config(
      head_with_assigner(model.at("lane_head"), train_cfg.at("lane").at("assigner")));
  if (o.lane_head.num_classes != 1) {
    throw input_error(model.at("lane_head").at("num_classes").where() +
                      ": the Map Element Bucket's lane head detects lane segments only "
                      "(num_classes: 1); crossings and road boundaries are the area head's");
  }
  const ConfigNode* lsls = optional_head(model, "lsls_head");
  o.lsls_head = lsls == nullptr ? nullptr : relation_head_registry().read(*lsls, kLaneSegNetScope);
  const ConfigNode* bbox = optional_head(model, "bbox_head");
  o.bbox_head =
      bbox == nullptr
          ? nullptr
          : read_traffic_element_head(head_with_assigner(*bbox, head_train_cfg(*bbox, "bbox")));
  const ConfigNode* lste = optional_head(model, "lste_head");
  if (lste != nullptr && bbox == nullptr) {
    throw input_error(lste->where() +
                      ": lste_head relates lane segments to traffic elements, which need a "
                      "bbox_head");
  }
  o.lste_head = lste == nullptr ? nullptr : relation_head_registry().read(*lste, kLaneSegNetScope);
  const ConfigNode* area = optional_head(model, "area_head");
  o.area_head.reset();
  if (area != nullptr) {
    o.area_head =
        MapTrHeadOptions::from_config(head_with_assigner(*area, head_train_cfg(*area, "area")));
  }
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> LaneSegNetMapElementBucketOptions::build() const {
  return std::make_shared<LaneSegNetMapElementBucketImpl>(*this);
}

LaneSegNetMapElementBucketImpl::LaneSegNetMapElementBucketImpl(
    const LaneSegNetMapElementBucketOptions& options)
    : options_(options) {
  require_checkpointable(options.checkpoint, image_and_bev_stages());
  // Registration order = the original's state-dict order.
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  bev_constructor_ = register_module(
      "bev_constructor", options.bev_constructor->build(checkpoint_listed("bev_constructor")));
  lane_head_ = register_module("pts_bbox_head", LaneSegHead(options.lane_head));
  if (options.lsls_head) lsls_head_ = register_module("lsls_head", options.lsls_head->build());
  if (options.bbox_head) bbox_head_ = register_module("bbox_head", options.bbox_head->build());
  if (options.lste_head) lste_head_ = register_module("lste_head", options.lste_head->build());
  if (options.area_head) area_head_ = register_module("area_head", MapTrHead(*options.area_head));
}

bool LaneSegNetMapElementBucketImpl::checkpoint_listed(const std::string& stage) const {
  return stage_listed(options_.checkpoint, stage);
}

LaneSegNetMapElementBucketOutputs LaneSegNetMapElementBucketImpl::forward(const Batch& batch) {
  require_multi_view_images(batch, "LaneSegNetMapElementBucket");
  const at::Tensor& img = batch.images;
  LaneSegNetMapElementBucketOutputs out;
  out.image_features = multi_view_features(*img_backbone_, *img_neck_, img,
                                           checkpoint_listed("extract_feat") && is_training());
  const at::Tensor bev = in_stage("olv2::stage::view_transformer", [&] {
    return bev_constructor_->forward(out.image_features, batch);
  });
  out.bev_features = bev.flatten(2).transpose(1, 2);  // [B, bev_h * bev_w, C]
  out.lanes = lane_head_->forward(bev);
  const at::Tensor& lane_states = out.lanes.query_states;
  if (lsls_head_) out.lsls = lsls_head_->forward(lane_states, lane_states);
  if (bbox_head_) {
    FrontCameraInputs front =
        front_camera_inputs(out.image_features, batch, {img.size(3), img.size(4)});
    out.traffic_element_geometry = std::move(front.geometry);
    out.traffic_elements = bbox_head_->forward(front.levels, out.traffic_element_geometry);
    if (lste_head_) {
      out.lste = lste_head_->forward(lane_states, out.traffic_elements.query_states);
    }
  }
  if (area_head_) out.areas = area_head_->forward(out.bev_features);
  return out;
}

std::shared_ptr<ForwardOutputs> LaneSegNetMapElementBucketImpl::forward_outputs(
    const Batch& batch) {
  return std::make_shared<LaneSegNetMapElementBucketOutputs>(forward(batch));
}

DetectorLosses LaneSegNetMapElementBucketImpl::losses_of(const ForwardOutputs& forward_outputs,
                                                         const Batch& batch) {
  const std::vector<LaneSegmentTargets> targets =
      lane_segment_targets(batch, "LaneSegNetMapElementBucket");
  if (area_head_ && batch.gt_areas.size() != batch.gt_lc.size()) {
    throw input_error(
        "LaneSegNetMapElementBucket: the batch has no areas for the area head (the Map Element "
        "Bucket's dataset with `gt_areas_3d` and `gt_area_labels_3d` collected gives them)");
  }
  const auto& outputs = outputs_as<LaneSegNetMapElementBucketOutputs>(forward_outputs);
  const AutocastOff float32;
  DetrHeadLosses lanes = lane_head_->loss(outputs.lanes, targets, all_reduce_mean);
  const std::vector<AssignResult>& lane_matches = lanes.assign_results.back();
  DetectorLosses result;
  for (auto& [name, value] : lanes.losses) result.losses.emplace_back("lane_head." + name, value);
  if (lsls_head_) {
    result.losses.emplace_back("lsls_head.loss_rel",
                               lsls_head_->loss(outputs.lsls.to(torch::kFloat), lane_matches,
                                                lane_matches, batch.gt_topology_lclc));
  }
  if (bbox_head_) {
    HeadOutputs te_outputs = outputs.traffic_elements;
    te_outputs.cls_scores = te_outputs.cls_scores.to(at::kFloat);
    te_outputs.reg_preds = te_outputs.reg_preds.to(at::kFloat);
    DetrHeadLosses te = bbox_head_->loss(te_outputs, batch.gt_te, batch.gt_te_labels,
                                         outputs.traffic_element_geometry, all_reduce_mean);
    std::vector<std::pair<std::string, at::Tensor>> te_losses;
    for (auto& [name, value] : te.losses) te_losses.emplace_back("bbox_head." + name, value);
    if (lste_head_) {
      te_losses.emplace_back("lste_head.loss_rel",
                             lste_head_->loss(outputs.lste.to(torch::kFloat), lane_matches,
                                              te.assign_results.back(), batch.gt_topology_lcte));
    }
    // As the original: without any traffic element in the batch their losses stay in the graph
    // multiplied by zero.
    int64_t num_te = 0;
    for (const at::Tensor& boxes : batch.gt_te) num_te += boxes.size(0);
    for (auto& [name, value] : te_losses) {
      result.losses.emplace_back(name, num_te == 0 ? value * 0 : value);
    }
    result.traffic_element_assign = std::move(te.assign_results);
  }
  if (area_head_) {
    std::vector<AreaTargets> areas;
    for (size_t b = 0; b < batch.gt_areas.size(); ++b) {
      areas.push_back({batch.gt_areas[b], batch.gt_area_labels[b]});
    }
    DetrHeadLosses area = area_head_->loss(outputs.areas, areas, all_reduce_mean);
    for (auto& [name, value] : area.losses) result.losses.emplace_back("area_head." + name, value);
    result.area_assign = std::move(area.assign_results);
  }
  result.lane_assign = std::move(lanes.assign_results);
  return result;
}

Batch LaneSegNetMapElementBucketImpl::as_the_original_sees(const Batch& batch) const {
  return without_ego_motion(batch);
}

std::vector<FrameTestOutputs> LaneSegNetMapElementBucketImpl::decode_outputs(
    const ForwardOutputs& forward_outputs, const Batch& batch, bool rescale) const {
  const auto& outputs = outputs_as<LaneSegNetMapElementBucketOutputs>(forward_outputs);
  std::vector<FrameTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    FrameTestOutputs r = lane_segment_test_outputs(*lane_head_, outputs.lanes, b);
    if (lsls_head_) r.lclc = lsls_head_->probabilities(outputs.lsls)[b];
    if (bbox_head_) {
      const ImageMeta& meta = batch.metas[static_cast<size_t>(b)];
      std::vector<double> scale;
      if (rescale) scale.assign(meta.scale_factor.begin(), meta.scale_factor.end());
      r.te = bbox_head_->decode(outputs.traffic_elements, b, image_hw(meta.img_shape.at(0)), scale);
      r.te.objects = with_front_crop_offset(r.te.objects, meta);
      if (lste_head_) r.lcte = lste_head_->probabilities(outputs.lste)[b];
    }
    if (area_head_) {
      const AreaDetections areas = area_head_->decode(outputs.areas, b);
      r.areas.objects = areas.points;
      r.areas.scores = areas.scores;
    }
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> LaneSegNetMapElementBucketImpl::predictions_of(
    const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const {
  return map_element_bucket_frame_predictions(batch, decoded, lane_head_->options().points_num());
}

void LaneSegNetMapElementBucketImpl::set_dropout(double p) {
  bev_constructor_->set_dropout(p);
  lane_head_->set_dropout(p);
  if (bbox_head_) bbox_head_->set_dropout(p);
  if (area_head_) area_head_->set_dropout(p);
}

}  // namespace olv2
