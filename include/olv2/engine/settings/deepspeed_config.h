#pragma once
// DeepSpeed JSON configs: the keys this trainer understands, read through the same schemas and
// registries as the YAML config's sections, and DeepSpeed's batch-size inference.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/engine/precision/fp16_section.h"
#include "olv2/solver/deepspeed_schedules.h"

namespace olv2 {

// `optimizer`: `type` and `params`. DeepSpeed's own Adam (`Adam` or `AdamW`, in any letter case)
// is the registered AdamW, or Adam (L2 weight decay) when params.adam_w_mode is false; any other
// type is a registered optimizer by torch.optim's name (`SGD`), as DeepSpeed takes such names from
// torch.optim. The other params are that optimizer's YAML keys, checked by its schema.
struct DeepSpeedOptimizer {
  std::string written_type;  // as in the file
  // `type` (the registered one) and the params that are the optimizer's own keys.
  ConfigNode keys;
  // params.torch_adam: DeepSpeed runs torch's Adam through FP16_UnfusedOptimizer instead of
  // FusedAdam through FP16_Optimizer (the same update, other loss-scale defaults).
  bool torch_adam = false;

  const std::string& type() const { return keys.at("type").as_string(); }
  // The YAML `optimizer` section with these keys laid over it: the keys the params leave out
  // keep the YAML's values (paramwise_cfg always), those the type does not take are dropped.
  ConfigNode laid_over(const ConfigNode& yaml_section) const;
};

// A DeepSpeed JSON as written: every key this trainer understands, absent ones nullopt.
struct DeepSpeedConfig {
  std::string file;  // for messages
  std::optional<int64_t> train_batch_size;
  std::optional<int64_t> train_micro_batch_size_per_gpu;
  std::optional<int64_t> gradient_accumulation_steps;
  std::optional<DeepSpeedOptimizer> optimizer;
  // A registered DeepSpeed schedule (deepspeed_schedule_registry()); params absent take
  // DeepSpeed's defaults.
  std::shared_ptr<const DeepSpeedScheduleOptions> scheduler;
  std::optional<double> gradient_clipping;  // 0 turns clipping off, as in DeepSpeed
  std::optional<Fp16Section> fp16;          // read by the YAML `fp16` section's schema and reader
  std::optional<bool> bf16_enabled;         // `bf16.enabled` (or the old name `bfloat16`)
  // `zero_optimization.stage` (0..2; the old boolean form means 1 or 0; 3 is refused: it
  // shards the parameters themselves). Of the other keys only communication tuning is
  // accepted (and ignored: buckets and overlap come from `dist_params`).
  std::optional<int64_t> zero_stage;
  std::vector<std::string> ignored;  // keys accepted without effect, "key: why"
};

// Parses and validates DeepSpeed JSON text. Unknown keys come first, then ill-typed values;
// every problem is reported in one input error, each with its JSON path
// ("FILE: unknown key `fp16.hysterisis`, did you mean `fp16.hysteresis`?").
// Text that is not JSON gives an input error naming the file, line and column.
DeepSpeedConfig parse_deepspeed_config(const std::string& text, const std::string& source_name);

// Reads `file` and parses it as above; a missing file is an input error.
DeepSpeedConfig read_deepspeed_config(const std::filesystem::path& file);

// Train batch keys after DeepSpeed's inference for `world_size` ranks.
struct BatchSizes {
  int64_t micro_batch_per_gpu = 0;
  int64_t accumulation_steps = 0;
  int64_t train_batch_size = 0;
  std::string how;  // which keys were given and which were inferred
};

// DeepSpeed's rules: with all three keys nothing is inferred; with two the
// third is; with only train_batch_size or only the micro batch, accumulation
// is 1. The result must satisfy train = micro × accumulation × world with every
// value > 0; otherwise an input error. nullopt when the JSON has none of the
// three keys.
std::optional<BatchSizes> resolve_batch_sizes(const DeepSpeedConfig& config, int64_t world_size);

}  // namespace olv2
