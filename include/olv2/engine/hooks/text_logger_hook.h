#pragma once
// The hook that prints the original trainer's progress line to the console and the `.log` file.
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

// The original trainer's progress line every log interval (format_train_line), with lr,
// grad_norm, data_time and memory appended, to the console and the `.log` file.
class TextLoggerHook : public Hook {
 public:
  void after_step(TrainContext& context) override;
};

// `TextLoggerHook` (priority VERY_LOW), on rank 0, with the logger keys (logger_hook_keys).
struct TextLoggerHookOptions : HookOptions {
  static Schema schema();
  static TextLoggerHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
