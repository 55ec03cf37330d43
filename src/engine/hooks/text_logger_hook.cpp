#include "olv2/engine/hooks/text_logger_hook.h"

#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/train_context.h"
#include "olv2/util/logging.h"

namespace olv2 {

void TextLoggerHook::after_step(TrainContext& context) {
  if (!context.log_due) return;
  const LogBuffer& buffer = context.log_buffer;
  TrainLine line;
  line.epoch = context.epoch;
  line.idx = context.step.last_idx;
  line.micro_batches = context.micro_batches_per_epoch;
  line.iter = context.step.in_epoch;
  line.iters = context.steps_per_epoch;
  line.samples_per_gpu = context.identity.samples_per_gpu;
  line.accumulation = context.identity.accumulation_steps;
  line.eta_seconds = context.eta_seconds;
  line.iter_time_seconds = buffer.output("time");
  line.loss = buffer.output("loss");
  for (const auto& [key, value] : buffer.output()) {
    if (key != "data_time" && key != "time" && key != "grad_norm" && key != "loss")
      line.log_vars.emplace_back(key, value);
  }
  line.log_vars.emplace_back("loss", line.loss);
  line.lr = context.optimizer->lrs().front();
  line.grad_norm = buffer.output("grad_norm");
  line.data_time = buffer.output("data_time");
  line.memory_mb = context.memory_mb;
  if (const LossScaler* scaler = context.optimizer->loss_scaler()) {
    line.loss_scale = scaler->scale();
    line.skipped_steps = scaler->skipped_steps();
  }
  spdlog::info("{}", format_train_line(line));
}

Schema TextLoggerHookOptions::schema() { return hook_schema("TextLoggerHook", logger_hook_keys()); }

TextLoggerHookOptions TextLoggerHookOptions::from_config(const ConfigNode& section) {
  TextLoggerHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kVeryLow);
  return options;
}

std::unique_ptr<Hook> TextLoggerHookOptions::build(const HookSite& site) const {
  if (site.rank != 0) return nullptr;
  return std::make_unique<TextLoggerHook>();
}

}  // namespace olv2
