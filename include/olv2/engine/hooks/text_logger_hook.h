#pragma once
// The hook that prints the original trainer's progress line to the console and the `.log` file.
#include "olv2/engine/hook.h"

namespace olv2 {

// The original trainer's progress line every log interval (format_train_line), with lr,
// grad_norm, data_time and memory appended, to the console and the `.log` file.
class TextLoggerHook : public Hook {
 public:
  void after_step(TrainContext& context) override;
};

}  // namespace olv2
