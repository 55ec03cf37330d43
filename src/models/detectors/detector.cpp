#include "olv2/models/detectors/detector.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "olv2/util/error.h"

namespace olv2 {

LossMap DetectorImpl::forward_train(const Batch& batch) {
  const Batch seen = as_the_original_sees(batch);
  return losses_of(*forward_outputs(seen), seen).losses;
}

std::vector<FramePrediction> DetectorImpl::predict(const Batch& batch) {
  const Batch seen = as_the_original_sees(batch);
  return predictions_of(seen, decode_outputs(*forward_outputs(seen), seen, /*rescale=*/true));
}

at::Tensor total_loss(const LossMap& losses) {
  at::Tensor total;
  for (const auto& [name, value] : losses) total = total.defined() ? total + value : value;
  return total;
}

ConfigNode head_with_assigner(const ConfigNode& head, const ConfigNode& assigner) {
  ConfigNode train_cfg = ConfigNode::map(assigner.location());
  train_cfg.set("assigner", assigner);
  ConfigNode merged = head;
  merged.set("train_cfg", std::move(train_cfg));
  return merged;
}

Schema checkpoint_stages_schema(const std::vector<std::string>& checkpointable) {
  return Schema::sequence(Schema::string().choices(checkpointable));
}

std::vector<std::string> checkpoint_stages_from_config(const ConfigNode& model) {
  const ConfigNode* stages = model.find("checkpoint");
  return stages == nullptr ? std::vector<std::string>{} : stages->as_vector<std::string>();
}

const std::vector<std::string>& image_and_bev_stages() {
  static const std::vector<std::string> stages{"extract_feat", "bev_constructor"};
  return stages;
}

void require_checkpointable(const std::vector<std::string>& stages,
                            const std::vector<std::string>& checkpointable) {
  for (const std::string& stage : stages) {
    if (std::find(checkpointable.begin(), checkpointable.end(), stage) == checkpointable.end()) {
      std::string expected;
      for (const std::string& name : checkpointable) {
        expected += (expected.empty() ? "" : " or ") + name;
      }
      throw input_error("model.checkpoint: unknown stage `" + stage + "` (expected " + expected +
                        ")");
    }
  }
}

bool stage_listed(const std::vector<std::string>& stages, const std::string& stage) {
  return std::find(stages.begin(), stages.end(), stage) != stages.end();
}

void require_multi_view_images(const Batch& batch, const std::string& detector) {
  const at::Tensor& img = batch.images;
  if (img.dim() != 5 || batch.metas.empty() ||
      batch.metas.size() != static_cast<size_t>(img.size(0))) {
    throw runtime_error(detector + ": expected images [B, N, 3, H, W] with one meta per sample");
  }
}

Batch without_ego_motion(const Batch& batch) {
  Batch first_frames = batch;
  first_frames.can_bus = batch.can_bus.clone();
  first_frames.can_bus.narrow(1, 0, 3).zero_();
  first_frames.can_bus.narrow(1, 17, 1).zero_();
  return first_frames;
}

void require_ground_truth(const Batch& batch, const std::string& detector) {
  if (!batch.has_gt()) {
    throw runtime_error(detector + ": the batch has no ground truth for the losses");
  }
}

}  // namespace olv2
