#pragma once
// mmdet 2.x's `auto_scale_lr`: the learning rates scaled linearly to the run's world batch.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/engine/settings/training_settings.h"

namespace olv2 {

// mmdet 2.x's `auto_scale_lr: {enable, base_batch_size}`: the linear scaling rule for a run on
// another number of GPUs than the recipe's.
struct AutoScaleLrOptions {
  bool enable = false;
  std::optional<int64_t> base_batch_size;  // none: nothing is scaled (as mmdet)

  static Schema schema();
  static AutoScaleLrOptions from_config(const ConfigNode& section);
};

// Applies the rule once, as mmdet's train_detector: the world batch is world_size ×
// samples_per_gpu (accumulation not counted, as mmdet); when it differs from base_batch_size
// every learning rate is multiplied by world batch ÷ base batch: optimizer.lr (so every
// `lr_mult` group follows) and, under a DeepSpeed schedule, its absolute lrs (warmup_min_lr,
// warmup_max_lr); the optimizer.lr line of the settings' sources says so. Returns mmdet's log
// lines.
std::vector<std::string> apply_auto_scale_lr(TrainingSettings& settings,
                                             const AutoScaleLrOptions& options, int64_t world_size);

}  // namespace olv2
