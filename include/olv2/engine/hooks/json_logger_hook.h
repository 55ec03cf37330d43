#pragma once
// The hook that writes mmcv's JSON-lines log, a record per log interval and per validation.
#include <filesystem>

#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"
#include "olv2/engine/logging/json_log_file.h"

namespace olv2 {

// mmcv's JSON lines (`<timestamp>.log.json`): a train record every log interval and a val
// record after every validation.
class JsonLoggerHook : public Hook {
 public:
  explicit JsonLoggerHook(const std::filesystem::path& file) : file_(file) {}
  void before_run(TrainContext& context) override { write_validation(context); }
  void after_step(TrainContext& context) override;
  void after_epoch(TrainContext& context) override { write_validation(context); }

 private:
  void write_validation(const TrainContext& context);

  JsonLogFile file_;
};

// `JsonLoggerHook` (priority VERY_LOW), on rank 0: `<work_dir>/<timestamp>.log.json`.
struct JsonLoggerHookOptions : HookOptions {
  static Schema schema();
  static JsonLoggerHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
