#include "olv2/models/detectors/baseline.h"

#include <torch/torch.h>

#include <algorithm>

#include "olv2/config/section_readers.h"
#include "olv2/models/activation_checkpoint.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

const std::vector<std::string> kBaselineCheckpointableStages{"extract_feat",
                                                             "img_view_transformer"};

namespace {

std::vector<at::Tensor> parameters_of(const torch::nn::Module& module) {
  return module.parameters();
}

std::pair<int64_t, int64_t> hw(const std::array<int64_t, 3>& shape) { return {shape[0], shape[1]}; }

// Runs one image stage inside a profiler scope of its name (`olv2::stage::<stage>`), which
// profilers and the benchmarks' stage split see.
template <typename F>
auto in_stage(const char* scope, F&& run) {
  RECORD_FUNCTION(scope, std::vector<c10::IValue>());
  return run();
}

}  // namespace

Schema BaselineOptions::schema() {
  Schema schema = typed_schema("Baseline");
  schema.required("img_backbone", backbone_registry().schema())
      .required("img_neck", neck_registry().schema())
      .required("img_view_transformer", CustomIpmViewTransformerOptions::schema())
      .required("lc_head", CustomDetrHeadOptions::schema())
      .required("te_head", CustomDetrHeadOptions::schema())
      .required("lclc_head", TopologyHeadOptions::schema())
      .required("lcte_head", TopologyHeadOptions::schema())
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
  o.img_view_transformer =
      CustomIpmViewTransformerOptions::from_config(model.at("img_view_transformer"));
  o.lc_head = CustomDetrHeadOptions::from_config(model.at("lc_head"));
  o.te_head = CustomDetrHeadOptions::from_config(model.at("te_head"));
  o.lclc_head = TopologyHeadOptions::from_config(model.at("lclc_head"));
  o.lcte_head = TopologyHeadOptions::from_config(model.at("lcte_head"));
  o.checkpoint = checkpoint_stages_from_config(model);
  return o;
}

std::shared_ptr<DetectorImpl> BaselineOptions::build() const {
  return std::make_shared<BaselineImpl>(*this);
}

BaselineImpl::BaselineImpl(const BaselineOptions& options) : options_(options) {
  require_checkpointable(options.checkpoint, kBaselineCheckpointableStages);
  // Registration order = the original's state-dict order.
  img_backbone_ = register_module("img_backbone", options.img_backbone->build());
  img_neck_ = register_module("img_neck", options.img_neck->build());
  img_view_transformer_ = register_module("img_view_transformer",
                                          CustomIpmViewTransformer(options.img_view_transformer));
  lc_head_ = register_module("lc_head", CustomDetrHead(options.lc_head));
  te_head_ = register_module("te_head", CustomDetrHead(options.te_head));
  lclc_head_ = register_module("lclc_head", TopologyHead(options.lclc_head));
  lcte_head_ = register_module("lcte_head", TopologyHead(options.lcte_head));
}

bool BaselineImpl::checkpointed(const std::string& stage) const {
  const auto& names = options_.checkpoint;
  return is_training() && torch::GradMode::is_enabled() &&
         std::find(names.begin(), names.end(), stage) != names.end();
}

at::Tensor BaselineImpl::extract_feat(const at::Tensor& images) {
  auto body = [this](const at::Tensor& x) {
    const std::vector<at::Tensor> stages =
        in_stage("olv2::stage::backbone", [&] { return img_backbone_->forward(x); });
    const std::vector<at::Tensor> levels =
        in_stage("olv2::stage::neck", [&] { return img_neck_->forward(stages); });
    if (levels.size() != 1) {
      throw input_error(
          "model.img_neck: the view transformer takes one feature level, the neck "
          "gives " +
          std::to_string(levels.size()));
    }
    return levels.front();
  };
  if (!checkpointed("extract_feat")) return body(images);
  std::vector<at::Tensor> params = parameters_of(*img_backbone_);
  for (const at::Tensor& p : parameters_of(*img_neck_)) params.push_back(p);
  return checkpoint(body, images, params);
}

BaselineOutputs BaselineImpl::simple_forward(const Batch& batch) {
  const at::Tensor& img = batch.images;
  if (img.dim() != 5 || batch.metas.empty() ||
      batch.metas.size() != static_cast<size_t>(img.size(0))) {
    throw runtime_error("Baseline: expected images [B, N, 3, H, W] with one meta per sample");
  }
  const int64_t num_samples = img.size(0), num_cams = img.size(1);
  BaselineOutputs out;
  out.image_features =
      extract_feat(img.view({num_samples * num_cams, img.size(2), img.size(3), img.size(4)}));

  // The original casts lidar2img to float32 and normalises by sample 0's front-camera img_shape.
  const at::Tensor ego2cam = batch.lidar2img.to(out.image_features.device(), torch::kFloat);
  const std::pair<int64_t, int64_t> img_hw = hw(batch.metas[0].img_shape.at(0));
  if (checkpointed("img_view_transformer")) {
    auto body = [this, ego2cam, img_hw](const at::Tensor& f) {
      return in_stage("olv2::stage::view_transformer",
                      [&] { return img_view_transformer_->forward(f, ego2cam, img_hw); });
    };
    out.bev_features = checkpoint(body, out.image_features, parameters_of(*img_view_transformer_));
  } else {
    out.bev_features = in_stage("olv2::stage::view_transformer", [&] {
      return img_view_transformer_->forward(out.image_features, ego2cam, img_hw);
    });
  }
  const at::Tensor& f = out.image_features;
  const at::Tensor front =
      f.view({num_samples, num_cams, f.size(1), f.size(2), f.size(3)}).select(1, 0);

  // The lane head treats the BEV grid as its image.
  const std::pair<int64_t, int64_t> bev_hw{out.bev_features.size(2), out.bev_features.size(3)};
  out.lc_geometry.batch_input_shape = bev_hw;
  out.lc_geometry.img_shapes.assign(static_cast<size_t>(num_samples), bev_hw);
  out.te_geometry.batch_input_shape = hw(batch.metas[0].pad_shape.at(0));
  for (const ImageMeta& meta : batch.metas)
    out.te_geometry.img_shapes.push_back(hw(meta.img_shape.at(0)));

  out.lc = lc_head_->forward(out.bev_features, out.lc_geometry);
  out.te = te_head_->forward(front, out.te_geometry);
  out.lclc = lclc_head_->forward(out.lc.dec_features, out.lc.dec_features);
  out.lcte = lcte_head_->forward(out.lc.dec_features, out.te.dec_features);
  return out;
}

BaselineTrainOutputs BaselineImpl::forward_train_detailed(const Batch& batch) {
  if (!batch.has_gt())
    throw runtime_error("Baseline::forward_train: the batch has no ground truth");
  BaselineOutputs out = simple_forward(batch);
  // Matching costs and losses in fp32 whatever autocast produced the outputs in.
  const AutocastGuard cpu_fp32(c10::kCPU, AutocastState{false});
  const AutocastGuard cuda_fp32(c10::kCUDA, AutocastState{false});
  for (DetrHeadOutputs* head : {&out.lc, &out.te}) {
    head->cls_scores = head->cls_scores.to(at::kFloat);
    head->reg_preds = head->reg_preds.to(at::kFloat);
  }
  out.lclc = out.lclc.to(at::kFloat);
  out.lcte = out.lcte.to(at::kFloat);
  BaselineTrainOutputs result;
  DetrHeadLosses lc =
      lc_head_->loss(out.lc, batch.gt_lc, batch.gt_lc_labels, out.lc_geometry, all_reduce_mean);
  DetrHeadLosses te =
      te_head_->loss(out.te, batch.gt_te, batch.gt_te_labels, out.te_geometry, all_reduce_mean);
  for (auto& [name, value] : lc.losses) result.losses.emplace_back("lc_" + name, value);
  for (auto& [name, value] : te.losses) result.losses.emplace_back("te_" + name, value);
  result.lc_assign = lc.assign_results.back();
  result.te_assign = te.assign_results.back();
  result.losses.emplace_back(
      "topology_lclc_loss_cls",
      lclc_head_->loss(out.lclc, result.lc_assign, result.lc_assign, batch.gt_topology_lclc));
  result.losses.emplace_back(
      "topology_lcte_loss_cls",
      lcte_head_->loss(out.lcte, result.lc_assign, result.te_assign, batch.gt_topology_lcte));
  return result;
}

LossMap BaselineImpl::forward_train(const Batch& batch) {
  return forward_train_detailed(batch).losses;
}

std::vector<FrameTestOutputs> BaselineImpl::forward_test(const Batch& batch) {
  const BaselineOutputs out = simple_forward(batch);
  std::vector<FrameTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    const ImageMeta& meta = batch.metas[static_cast<size_t>(b)];
    FrameTestOutputs r;
    r.lc = lc_head_->decode_lanes(out.lc.cls_scores[-1][b], out.lc.reg_preds[-1][b]);
    // Traffic elements are rescaled back to the raw front image (the original's rescale=True).
    const std::vector<double> scale(meta.scale_factor.begin(), meta.scale_factor.end());
    r.te = te_head_->decode_boxes(out.te.cls_scores[-1][b], out.te.reg_preds[-1][b],
                                  hw(meta.img_shape.at(0)), scale);
    r.lclc = out.lclc[-1][b].squeeze(-1);
    r.lcte = out.lcte[-1][b].squeeze(-1);
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> BaselineImpl::predict(const Batch& batch) {
  return frame_predictions(batch, forward_test(batch));
}

void BaselineImpl::set_dropout(double p) {
  lc_head_->set_dropout(p);
  te_head_->set_dropout(p);
}

}  // namespace olv2
