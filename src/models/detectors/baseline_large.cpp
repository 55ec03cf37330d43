#include "olv2/models/detectors/baseline_large.h"

#include <torch/torch.h>

#include <algorithm>

#include "olv2/assign/assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/models/activation_checkpoint.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

const std::vector<std::string> kBaselineLargeCheckpointableStages{"extract_feat",
                                                                  "bev_constructor"};

namespace {

std::pair<int64_t, int64_t> shape_hw(const std::array<int64_t, 3>& shape) {
  return {shape[0], shape[1]};
}

std::vector<at::Tensor> parameters_of_all(std::initializer_list<const torch::nn::Module*> modules) {
  std::vector<at::Tensor> params;
  for (const torch::nn::Module* module : modules) {
    for (const at::Tensor& p : module->parameters()) params.push_back(p);
  }
  return params;
}

}  // namespace

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
      .required("bev_constructor", BevFormerConstructerOptions::schema())
      .required("bbox_head", TeDeformableDetrHeadOptions::schema())
      .required("pts_bbox_head", LcDeformableDetrHeadOptions::schema())
      .required("lclc_head", RelationshipHeadOptions::schema())
      .required("lcte_head", RelationshipHeadOptions::schema())
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
  o.bev_constructor = BevFormerConstructerOptions::from_config(model.at("bev_constructor"));
  o.bbox_head = TeDeformableDetrHeadOptions::from_config(model.at("bbox_head"),
                                                         model.at("bbox_train_cfg").at("assigner"));
  o.pts_bbox_head = LcDeformableDetrHeadOptions::from_config(
      model.at("pts_bbox_head"), model.at("train_cfg").at("pts").at("assigner"));
  o.lclc_head = RelationshipHeadOptions::from_config(model.at("lclc_head"));
  o.lcte_head = RelationshipHeadOptions::from_config(model.at("lcte_head"));
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> BaselineLargeOptions::build() const {
  return std::make_shared<BaselineLargeImpl>(*this);
}

BaselineLargeImpl::BaselineLargeImpl(const BaselineLargeOptions& options) : options_(options) {
  require_checkpointable(options.checkpoint, kBaselineLargeCheckpointableStages);
  // The BEV encoder recomputes layer by layer: one segment for the whole stage would rebuild
  // every layer's graph at once in backward, which is the peak it is meant to avoid.
  BaselineLargeOptions built = options;
  built.bev_constructor.encoder.checkpoint_layers =
      std::find(options.checkpoint.begin(), options.checkpoint.end(), "bev_constructor") !=
      options.checkpoint.end();
  // Registration order = the original's state-dict order.
  pts_bbox_head_ = register_module("pts_bbox_head", LcDeformableDetrHead(options.pts_bbox_head));
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  bev_constructor_ =
      register_module("bev_constructor", BevFormerConstructer(built.bev_constructor));
  bbox_head_ = register_module("bbox_head", TeDeformableDetrHead(options.bbox_head));
  lclc_head_ = register_module("lclc_head", RelationshipHead(options.lclc_head));
  lcte_head_ = register_module("lcte_head", RelationshipHead(options.lcte_head));
}

bool BaselineLargeImpl::checkpointed(const std::string& stage) const {
  const auto& names = options_.checkpoint;
  return is_training() && torch::GradMode::is_enabled() &&
         std::find(names.begin(), names.end(), stage) != names.end();
}

std::vector<at::Tensor> BaselineLargeImpl::extract_feat(const at::Tensor& images) {
  auto body = [this](const std::vector<at::Tensor>& in) {
    return img_neck_->forward(img_backbone_->forward(in[0]));
  };
  if (!checkpointed("extract_feat")) return body({images});
  return checkpoint(body, {images}, parameters_of_all({img_backbone_.get(), img_neck_.get()}));
}

at::Tensor BaselineLargeImpl::construct_bev(const std::vector<at::Tensor>& features,
                                            const Batch& batch) {
  // As the original: the camera projection is read in float32 and normalised by sample 0's
  // front-camera image size.
  const at::Tensor lidar2img = batch.lidar2img.to(features[0].device(), torch::kFloat);
  const at::Tensor can_bus = batch.can_bus.to(features[0].device(), torch::kFloat);
  const std::pair<int64_t, int64_t> img_hw = shape_hw(batch.metas.at(0).img_shape.at(0));
  return bev_constructor_->forward(features, lidar2img, img_hw, can_bus);
}

BaselineLargeOutputs BaselineLargeImpl::simple_forward(const Batch& batch) {
  const at::Tensor& img = batch.images;
  if (img.dim() != 5 || batch.metas.empty() ||
      batch.metas.size() != static_cast<size_t>(img.size(0))) {
    throw runtime_error("BaselineLarge: expected images [B, N, 3, H, W] with one meta per sample");
  }
  const int64_t num_samples = img.size(0), num_cams = img.size(1);
  BaselineLargeOutputs out;
  for (const at::Tensor& level :
       extract_feat(img.view({num_samples * num_cams, img.size(2), img.size(3), img.size(4)}))) {
    out.image_features.push_back(
        level.view({num_samples, num_cams, level.size(1), level.size(2), level.size(3)}));
  }
  out.bev_features = construct_bev(out.image_features, batch);
  out.lc = pts_bbox_head_->forward(out.bev_features);

  std::vector<at::Tensor> front;
  for (const at::Tensor& level : out.image_features) front.push_back(level.select(1, 0));
  // The original reads the traffic-element head's input shape from the padded images.
  out.te_geometry.batch_input_shape = {img.size(3), img.size(4)};
  for (const ImageMeta& meta : batch.metas)
    out.te_geometry.img_shapes.push_back(shape_hw(meta.img_shape.at(0)));
  out.te = bbox_head_->forward(front, out.te_geometry);

  out.lclc = lclc_head_->forward(out.lc.history_states, out.lc.history_states);
  out.lcte = lcte_head_->forward(out.lc.history_states, out.te.history_states);
  return out;
}

BaselineLargeTrainOutputs BaselineLargeImpl::forward_train_detailed(const Batch& batch) {
  if (!batch.has_gt())
    throw runtime_error("BaselineLarge::forward_train: the batch has no ground truth");
  BaselineLargeOutputs out = simple_forward(batch);
  // Matching costs and losses in fp32 whatever autocast produced the outputs in.
  const AutocastGuard cpu_fp32(c10::kCPU, AutocastState{false});
  const AutocastGuard cuda_fp32(c10::kCUDA, AutocastState{false});
  out.lc.all_cls_scores = out.lc.all_cls_scores.to(at::kFloat);
  out.lc.all_lanes_preds = out.lc.all_lanes_preds.to(at::kFloat);
  out.te.all_cls_scores = out.te.all_cls_scores.to(at::kFloat);
  out.te.all_bbox_preds = out.te.all_bbox_preds.to(at::kFloat);
  out.lclc = out.lclc.to(at::kFloat);
  out.lcte = out.lcte.to(at::kFloat);

  BaselineLargeTrainOutputs result;
  DetrHeadLosses lc =
      pts_bbox_head_->loss(out.lc, batch.gt_lc, batch.gt_lc_labels, all_reduce_mean);
  for (auto& [name, value] : lc.losses) result.losses.emplace_back("lane_head." + name, value);
  result.lc_assign = lc.assign_results;
  result.losses.emplace_back("lclc_head.loss_rel",
                             lclc_head_->loss(out.lclc, lc.assign_results.back(),
                                              lc.assign_results.back(), batch.gt_topology_lclc));

  DetrHeadLosses te =
      bbox_head_->loss(out.te, batch.gt_te, batch.gt_te_labels, out.te_geometry, all_reduce_mean);
  result.te_assign = te.assign_results;
  LossMap te_losses;
  for (auto& [name, value] : te.losses) te_losses.emplace_back("bbox_head." + name, value);
  te_losses.emplace_back("lcte_head.loss_rel",
                         lcte_head_->loss(out.lcte, lc.assign_results.back(),
                                          te.assign_results.back(), batch.gt_topology_lcte));
  // As the original: without any traffic element in the batch their losses stay in the graph
  // multiplied by zero.
  int64_t num_te = 0;
  for (const at::Tensor& boxes : batch.gt_te) num_te += boxes.size(0);
  for (auto& [name, value] : te_losses) {
    result.losses.emplace_back(name, num_te == 0 ? value * 0 : value);
  }
  return result;
}

LossMap BaselineLargeImpl::forward_train(const Batch& batch) {
  return forward_train_detailed(batch).losses;
}

std::vector<FrameTestOutputs> BaselineLargeImpl::forward_test(const Batch& batch, bool rescale) {
  return decode(simple_forward(batch), batch, rescale);
}

std::vector<FrameTestOutputs> BaselineLargeImpl::decode(const BaselineLargeOutputs& out,
                                                        const Batch& batch, bool rescale) const {
  const at::Tensor lclc = out.lclc.sigmoid();
  const at::Tensor lcte = out.lcte.sigmoid();
  std::vector<FrameTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    const ImageMeta& meta = batch.metas[static_cast<size_t>(b)];
    FrameTestOutputs r;
    r.lc = pts_bbox_head_->decode(out.lc, b);
    std::vector<double> scale;
    if (rescale) scale.assign(meta.scale_factor.begin(), meta.scale_factor.end());
    r.te = bbox_head_->decode(out.te, b, shape_hw(meta.img_shape.at(0)), scale);
    r.lclc = lclc[b].squeeze(-1);
    r.lcte = lcte[b].squeeze(-1);
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> BaselineLargeImpl::predict(const Batch& batch) {
  return frame_predictions(batch, forward_test(batch, /*rescale=*/true));
}

void BaselineLargeImpl::set_dropout(double p) {
  bev_constructor_->set_dropout(p);
  pts_bbox_head_->set_dropout(p);
  bbox_head_->set_dropout(p);
}

}  // namespace olv2
