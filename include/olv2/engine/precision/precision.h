#pragma once
#include <c10/core/Device.h>

#include <memory>
#include <optional>
#include <string>

#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/engine/settings/training_settings.h"
#include "olv2/util/autocast_guard.h"

namespace olv2 {

// Mixed precision as a run on one device applies it, decided once: the forward's autocast
// (fp16 on CUDA; bf16 when asked for, and for fp16 on the CPU, where LibTorch's autocast has
// no fp16) and the loss scaler (fp16 only). The loop takes the autocast state, the optimizer
// step the scaler.
struct Precision {
  std::optional<AutocastState> autocast;  // none: fp32
  std::unique_ptr<LossScaler> scaler;     // null without fp16
  std::string description;                // the log line; empty in fp32
};

Precision resolve_precision(const PrecisionSettings& settings, const c10::Device& device);

}  // namespace olv2
