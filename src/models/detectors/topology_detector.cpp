#include "olv2/models/detectors/topology_detector.h"

#include <torch/torch.h>

#include <utility>

#include "olv2/models/detectors/multi_view_features.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {

TopologyDetectorImpl::TopologyDetectorImpl(std::string name, std::vector<std::string> checkpoint,
                                           std::string bev_stage)
    : name_(std::move(name)), checkpoint_(std::move(checkpoint)), bev_stage_(std::move(bev_stage)) {
  require_checkpointable(checkpoint_, {"extract_feat", bev_stage_});
}

bool TopologyDetectorImpl::checkpoint_listed(const std::string& stage) const {
  return stage_listed(checkpoint_, stage);
}

DetectorOutputs TopologyDetectorImpl::forward(const Batch& batch) {
  require_multi_view_images(batch, name_);
  const at::Tensor& img = batch.images;
  const int64_t num_samples = img.size(0);
  DetectorOutputs out;
  out.image_features = multi_view_features(*img_backbone_, *img_neck_, img,
                                           checkpoint_listed("extract_feat") && is_training());
  out.bev_features = in_stage("olv2::stage::view_transformer",
                              [&] { return bev_constructor_->forward(out.image_features, batch); });

  const std::pair<int64_t, int64_t> bev_hw{out.bev_features.size(2), out.bev_features.size(3)};
  out.lane_geometry.batch_input_shape = bev_hw;
  out.lane_geometry.img_shapes.assign(static_cast<size_t>(num_samples), bev_hw);
  out.lanes = lane_head_->forward({out.bev_features}, out.lane_geometry);

  FrontCameraInputs front =
      front_camera_inputs(out.image_features, batch, traffic_element_input_shape(batch));
  out.traffic_element_geometry = std::move(front.geometry);
  out.traffic_elements = traffic_element_head_->forward(front.levels, out.traffic_element_geometry);

  out.lclc = lclc_head_->forward(out.lanes.query_states, out.lanes.query_states);
  out.lcte = lcte_head_->forward(out.lanes.query_states, out.traffic_elements.query_states);
  return out;
}

std::shared_ptr<ForwardOutputs> TopologyDetectorImpl::forward_outputs(const Batch& batch) {
  return std::make_shared<DetectorOutputs>(forward(batch));
}

DetectorLosses TopologyDetectorImpl::losses_of(const ForwardOutputs& forward_outputs,
                                               const Batch& batch) {
  require_ground_truth(batch, name_);
  const AutocastOff float32;
  DetectorOutputs outputs = outputs_as<DetectorOutputs>(forward_outputs);
  for (HeadOutputs* head : {&outputs.lanes, &outputs.traffic_elements}) {
    head->cls_scores = head->cls_scores.to(at::kFloat);
    head->reg_preds = head->reg_preds.to(at::kFloat);
  }
  outputs.lclc = outputs.lclc.to(at::kFloat);
  outputs.lcte = outputs.lcte.to(at::kFloat);
  return compose_losses(outputs, batch);
}

std::vector<FrameTestOutputs> TopologyDetectorImpl::decode_outputs(
    const ForwardOutputs& forward_outputs, const Batch& batch, bool rescale) const {
  const DetectorOutputs& outputs = outputs_as<DetectorOutputs>(forward_outputs);
  const at::Tensor lclc = lclc_head_->probabilities(outputs.lclc);
  const at::Tensor lcte = lcte_head_->probabilities(outputs.lcte);
  std::vector<FrameTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    const ImageMeta& meta = batch.metas[static_cast<size_t>(b)];
    const std::pair<int64_t, int64_t> img_shape = image_hw(meta.img_shape.at(0));
    std::vector<double> scale;
    if (rescale) scale.assign(meta.scale_factor.begin(), meta.scale_factor.end());
    FrameTestOutputs r;
    r.lc = lane_head_->decode(outputs.lanes, b, img_shape, {});
    r.te = traffic_element_head_->decode(outputs.traffic_elements, b, img_shape, scale);
    r.lclc = lclc[b];
    r.lcte = lcte[b];
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> TopologyDetectorImpl::predictions_of(
    const Batch& batch, const std::vector<FrameTestOutputs>& decoded) const {
  return frame_predictions(batch, decoded);
}

void TopologyDetectorImpl::set_dropout(double p) {
  bev_constructor_->set_dropout(p);
  lane_head_->set_dropout(p);
  traffic_element_head_->set_dropout(p);
}

}  // namespace olv2
