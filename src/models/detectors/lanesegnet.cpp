#include "olv2/models/detectors/lanesegnet.h"

#include <torch/torch.h>

#include <utility>

#include "olv2/assign/assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/detectors/lanesegnet_predictions.h"
#include "olv2/models/detectors/multi_view_features.h"
#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/necks/fpn.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const RelationHeadOptions> lanesegnet_relation_head() {
  auto options = std::make_shared<RelationshipHeadOptions>();
  options->shared_param = false;
  options->matched_pairs_only = true;
  auto loss = std::make_shared<FocalLoss>();
  loss->loss_weight = 5.0;
  options->loss_rel = loss;
  return options;
}

std::vector<LaneSegmentTargets> lane_segment_targets(const Batch& batch,
                                                     const std::string& detector) {
  require_ground_truth(batch, detector);
  if (batch.gt_instance_masks.size() != batch.gt_lc.size()) {
    throw input_error(detector +
                      ": the batch has no lane-segment ground truth (line types and instance "
                      "masks: a v2.x lane-segment dataset with LaneSegNet's pipeline gives them)");
  }
  std::vector<LaneSegmentTargets> targets;
  for (size_t b = 0; b < batch.gt_lc.size(); ++b) {
    targets.push_back({batch.gt_lc[b], batch.gt_lc_labels[b], batch.gt_lane_left_type[b],
                       batch.gt_lane_right_type[b], batch.gt_instance_masks[b]});
  }
  return targets;
}

FrameTestOutputs lane_segment_test_outputs(const LaneSegHeadImpl& lane_head,
                                           const LaneSegmentOutputs& lanes, int64_t sample) {
  const LaneSegmentDetections detections = lane_head.decode(lanes, sample);
  FrameTestOutputs r;
  r.lc.objects = detections.lanes;
  r.lc.scores = detections.scores;
  r.line_types = at::stack(
      {detections.left_type_scores.argmax(-1), detections.right_type_scores.argmax(-1)}, -1);
  return r;
}

LaneSegNetOptions::LaneSegNetOptions()
    : img_backbone(std::make_shared<ResNetOptions>()),
      img_neck(std::make_shared<FpnOptions>()),
      bev_constructor(toponet_bevformer_constructer()),
      lclc_head(lanesegnet_relation_head()) {}

Schema LaneSegNetOptions::schema() {
  Schema lane_train_cfg = Schema::map();
  lane_train_cfg.required("assigner", assigner_registry().schema());
  Schema train_cfg = Schema::map();
  train_cfg.required("lane", lane_train_cfg).optional("bbox", Schema::open_map().nullable());
  Schema schema = typed_schema("LaneSegNet");
  schema.optional("video_test_mode", Schema::boolean())
      .required("img_backbone", backbone_registry().schema())
      .required("img_neck", neck_registry().schema())
      .required("bev_constructor", bev_constructor_registry().schema())
      .required("lane_head", LaneSegHeadOptions::schema())
      .optional("lclc_head", relation_head_registry().schema().nullable())
      .optional("bbox_head", Schema::open_map().nullable())
      .optional("lcte_head", Schema::open_map().nullable())
      .required("train_cfg", train_cfg)
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional("checkpoint", checkpoint_stages_schema(image_and_bev_stages()));
  return schema;
}

LaneSegNetOptions LaneSegNetOptions::from_config(const ConfigNode& model) {
  validate_config(model, schema());
  require_flag(model, "video_test_mode", false,
               "LaneSegNet trains and tests on single frames, without a previous BEV");
  for (const char* key : {"bbox_head", "lcte_head"}) {
    const ConfigNode* head = model.find(key);
    if (head != nullptr && !head->is_null()) {
      throw input_error(head->where() + ": LaneSegNet detects lane segments and crossings only; `" +
                        key + "` (traffic elements) is the Map Element Bucket's, not supported");
    }
  }
  LaneSegNetOptions o;
  o.img_backbone = backbone_registry().read(model.at("img_backbone"));
  o.img_neck = neck_registry().read(model.at("img_neck"));
  o.bev_constructor =
      bev_constructor_registry().read(model.at("bev_constructor"), kLaneSegNetScope);
  o.lane_head = LaneSegHeadOptions::from_config(
      head_with_assigner(model.at("lane_head"), model.at("train_cfg").at("lane").at("assigner")));
  const ConfigNode* lclc = model.find("lclc_head");
  o.lclc_head = lclc == nullptr || lclc->is_null()
                    ? nullptr
                    : relation_head_registry().read(*lclc, kLaneSegNetScope);
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> LaneSegNetOptions::build() const {
  return std::make_shared<LaneSegNetImpl>(*this);
}

LaneSegNetImpl::LaneSegNetImpl(const LaneSegNetOptions& options) : options_(options) {
  require_checkpointable(options.checkpoint, image_and_bev_stages());
  // Registration order = the original's state-dict order.
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  bev_constructor_ = register_module(
      "bev_constructor", options.bev_constructor->build(checkpoint_listed("bev_constructor")));
  lane_head_ = register_module("pts_bbox_head", LaneSegHead(options.lane_head));
  if (options.lclc_head) lclc_head_ = register_module("lclc_head", options.lclc_head->build());
}

bool LaneSegNetImpl::checkpoint_listed(const std::string& stage) const {
  return stage_listed(options_.checkpoint, stage);
}

LaneSegNetOutputs LaneSegNetImpl::forward(const Batch& batch) {
  require_multi_view_images(batch, "LaneSegNet");
  LaneSegNetOutputs out;
  out.image_features = multi_view_features(*img_backbone_, *img_neck_, batch.images,
                                           checkpoint_listed("extract_feat") && is_training());
  const at::Tensor bev = in_stage("olv2::stage::view_transformer", [&] {
    return bev_constructor_->forward(out.image_features, batch);
  });
  out.bev_features = bev.flatten(2).transpose(1, 2);  // [B, bev_h * bev_w, C]
  out.lanes = lane_head_->forward(bev);
  if (lclc_head_) out.lsls = lclc_head_->forward(out.lanes.query_states, out.lanes.query_states);
  return out;
}

std::shared_ptr<ForwardOutputs> LaneSegNetImpl::forward_outputs(const Batch& batch) {
  return std::make_shared<LaneSegNetOutputs>(forward(batch));
}

DetectorLosses LaneSegNetImpl::losses_of(const ForwardOutputs& forward_outputs,
                                         const Batch& batch) {
  const std::vector<LaneSegmentTargets> targets = lane_segment_targets(batch, "LaneSegNet");
  const LaneSegNetOutputs& outputs = outputs_as<LaneSegNetOutputs>(forward_outputs);
  const AutocastOff float32;
  DetrHeadLosses lanes = lane_head_->loss(outputs.lanes, targets, all_reduce_mean);
  DetectorLosses result;
  for (auto& [name, value] : lanes.losses) result.losses.emplace_back("lane_head." + name, value);
  if (lclc_head_) {
    const std::vector<AssignResult>& last = lanes.assign_results.back();
    result.losses.emplace_back(
        "lclc_head.loss_rel",
        lclc_head_->loss(outputs.lsls.to(torch::kFloat), last, last, batch.gt_topology_lclc));
  }
  result.lane_assign = std::move(lanes.assign_results);
  return result;
}

Batch LaneSegNetImpl::as_the_original_sees(const Batch& batch) const {
  return without_ego_motion(batch);
}

std::vector<FrameTestOutputs> LaneSegNetImpl::decode_outputs(const ForwardOutputs& forward_outputs,
                                                             const Batch& batch,
                                                             bool /*rescale*/) const {
  const LaneSegNetOutputs& outputs = outputs_as<LaneSegNetOutputs>(forward_outputs);
  std::vector<FrameTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    FrameTestOutputs r = lane_segment_test_outputs(*lane_head_, outputs.lanes, b);
    if (lclc_head_) r.lclc = lclc_head_->probabilities(outputs.lsls)[b];
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> LaneSegNetImpl::predictions_of(
    const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const {
  return lanesegnet_frame_predictions(batch, decoded, lane_head_->options().points_num());
}

void LaneSegNetImpl::set_dropout(double p) {
  bev_constructor_->set_dropout(p);
  lane_head_->set_dropout(p);
}

}  // namespace olv2
