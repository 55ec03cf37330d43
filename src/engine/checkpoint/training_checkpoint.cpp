#include "olv2/engine/checkpoint/training_checkpoint.h"

#include <torch/version.h>

#include <ctime>
#include <optional>

#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"

namespace olv2 {

namespace {

PthValue doubles(const std::vector<double>& values) {
  PthValue list = PthValue::list();
  for (double value : values) list.items().push_back(PthValue::from_float(value));
  return list;
}

PthValue scheduler_to_pth(const LrSchedulerState& state) {
  PthValue value = PthValue::dict();
  value.set("policy", PthValue::from_string(state.policy));
  value.set("epoch", PthValue::from_int(state.epoch));
  value.set("iteration", PthValue::from_int(state.iteration));
  value.set("last_batch_iteration", PthValue::from_int(state.last_batch_iteration));
  value.set("base_lrs", doubles(state.base_lrs));
  return value;
}

LrSchedulerState scheduler_from_pth(const PthValue& value) {
  LrSchedulerState state;
  state.policy = value.at("policy").as_string();
  state.epoch = value.at("epoch").as_int();
  state.iteration = value.at("iteration").as_int();
  state.last_batch_iteration = value.at("last_batch_iteration").as_int();
  for (const PthValue& lr : value.at("base_lrs").items()) state.base_lrs.push_back(lr.as_float());
  return state;
}

PthValue scaler_to_pth(const LossScalerState& state) {
  PthValue value = PthValue::dict();
  value.set("kind", PthValue::from_string(loss_scaler_kind_name(state.kind)));
  value.set("cur_scale", PthValue::from_float(state.scale));
  value.set("cur_iter", PthValue::from_int(state.cur_iter));
  value.set("last_overflow_iter", PthValue::from_int(state.last_overflow_iter));
  if (state.kind == LossScalerKind::kDynamicLossScaler) {
    value.set("cur_hysteresis", PthValue::from_int(state.cur_hysteresis));
  }
  value.set("skipped_steps", PthValue::from_int(state.skipped_steps));
  return value;
}

// Checkpoints written before the kind tag hold DynamicLossScaler state.
LossScalerKind scaler_kind_from_pth(const PthValue& value) {
  const PthValue* kind = value.find("kind");
  if (kind == nullptr) return LossScalerKind::kDynamicLossScaler;
  const std::optional<LossScalerKind> parsed = loss_scaler_kind_from_name(kind->as_string());
  if (!parsed) {
    throw input_error("loss_scaler.kind is `" + kind->as_string() + "`, expected " +
                      loss_scaler_kind_name(LossScalerKind::kDynamicLossScaler) + " or " +
                      loss_scaler_kind_name(LossScalerKind::kFp16Optimizer));
  }
  return *parsed;
}

LossScalerState scaler_from_pth(const PthValue& value) {
  LossScalerState state;
  state.kind = scaler_kind_from_pth(value);
  state.scale = value.at("cur_scale").as_float();
  state.cur_iter = value.at("cur_iter").as_int();
  state.last_overflow_iter = value.at("last_overflow_iter").as_int();
  if (state.kind == LossScalerKind::kDynamicLossScaler) {
    state.cur_hysteresis = value.at("cur_hysteresis").as_int();
  }
  state.skipped_steps = value.at("skipped_steps").as_int();
  return state;
}

std::string now_text() {
  const std::time_t now = std::time(nullptr);
  char buffer[64];
  std::strftime(buffer, sizeof(buffer), "%a %b %e %H:%M:%S %Y", std::localtime(&now));
  return buffer;
}

}  // namespace

void save_training_checkpoint(const std::filesystem::path& path,
                              const TrainingCheckpoint& checkpoint) {
  PthValue meta = PthValue::dict();
  meta.set("train_ds_version", PthValue::from_string("0.1.0"));
  meta.set("torch_version", PthValue::from_string(TORCH_VERSION));
  meta.set("config", PthValue::from_string(checkpoint.config_text));
  meta.set("seed", PthValue::from_int(static_cast<int64_t>(checkpoint.identity.seed)));
  meta.set("world_size", PthValue::from_int(checkpoint.identity.world_size));
  meta.set("samples_per_gpu", PthValue::from_int(checkpoint.identity.samples_per_gpu));
  meta.set("gradient_accumulation_steps",
           PthValue::from_int(checkpoint.identity.accumulation_steps));
  meta.set("epoch", PthValue::from_int(checkpoint.progress.epoch));
  meta.set("iter", PthValue::from_int(checkpoint.progress.iteration));
  meta.set("epoch_batches", PthValue::from_int(checkpoint.progress.epoch_batches));
  meta.set("epoch_position", PthValue::from_int(checkpoint.progress.epoch_position));
  meta.set("time", PthValue::from_string(now_text()));
  if (!checkpoint.hook_msgs.dict_items().empty()) meta.set("hook_msgs", checkpoint.hook_msgs);

  PthValue root = PthValue::dict();
  root.set("meta", meta);
  root.set("state_dict", to_pth_value(checkpoint.state_dict));
  root.set("optimizer", checkpoint.optimizer);
  root.set("scheduler", scheduler_to_pth(checkpoint.scheduler));
  if (checkpoint.loss_scaler) root.set("loss_scaler", scaler_to_pth(*checkpoint.loss_scaler));
  write_pth(path, root);
}

TrainingCheckpoint read_training_checkpoint(const std::filesystem::path& path) {
  const PthValue root = read_pth(path);
  try {
    TrainingCheckpoint checkpoint;
    const PthValue& meta = root.at("meta");
    checkpoint.progress.epoch = meta.at("epoch").as_int();
    checkpoint.progress.iteration = meta.at("iter").as_int();
    if (const PthValue* batches = meta.find("epoch_batches"))
      checkpoint.progress.epoch_batches = batches->as_int();
    checkpoint.progress.epoch_position = checkpoint.progress.epoch_batches;
    if (const PthValue* position = meta.find("epoch_position"))
      checkpoint.progress.epoch_position = position->as_int();
    if (const PthValue* seed = meta.find("seed"))
      checkpoint.identity.seed = static_cast<uint64_t>(seed->as_int());
    const PthValue* world_size = meta.find("world_size");
    const PthValue* samples = meta.find("samples_per_gpu");
    const PthValue* accumulation = meta.find("gradient_accumulation_steps");
    checkpoint.has_batch_identity =
        world_size != nullptr && samples != nullptr && accumulation != nullptr;
    if (checkpoint.has_batch_identity) {
      checkpoint.identity.world_size = world_size->as_int();
      checkpoint.identity.samples_per_gpu = samples->as_int();
      checkpoint.identity.accumulation_steps = accumulation->as_int();
    }
    if (const PthValue* config = meta.find("config")) checkpoint.config_text = config->as_string();
    if (const PthValue* hook_msgs = meta.find("hook_msgs")) {
      if (!hook_msgs->is_dict()) {
        throw input_error("meta.hook_msgs is a " + std::string(hook_msgs->kind_name()) +
                          ", expected a dict");
      }
      checkpoint.hook_msgs = *hook_msgs;
    }
    checkpoint.state_dict = tensors_of(root.at("state_dict"));
    checkpoint.optimizer = root.at("optimizer");
    checkpoint.scheduler = scheduler_from_pth(root.at("scheduler"));
    if (const PthValue* scaler = root.find("loss_scaler"))
      checkpoint.loss_scaler = scaler_from_pth(*scaler);
    return checkpoint;
  } catch (const Error& error) {
    throw input_error(path.string() + ": not a train_ds training checkpoint: " + error.what());
  }
}

NamedTensors read_checkpoint_weights(const std::filesystem::path& path) {
  const PthValue root = read_pth(path);
  if (!root.is_dict()) {
    throw input_error(path.string() +
                      ": expected a dict of tensors or a checkpoint with `state_dict`, got " +
                      root.kind_name());
  }
  const PthValue* state_dict = root.find("state_dict");
  NamedTensors tensors;
  try {
    tensors = tensors_of(state_dict != nullptr ? *state_dict : root);
  } catch (const Error& error) {
    throw input_error(path.string() + ": " + error.what());
  }
  for (auto& [name, tensor] : tensors) {
    if (name.rfind("module.", 0) == 0) name = name.substr(7);
  }
  return tensors;
}

}  // namespace olv2
