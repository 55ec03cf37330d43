#pragma once
// Mixed precision as a run requests it and as one device applies it: autocast and loss scaler.
#include <c10/core/Device.h>

#include <memory>
#include <optional>
#include <string>

#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/util/autocast_guard.h"

namespace olv2 {

// Mixed precision as requested. fp16 means fp16 autocast with the loss scaler
// on CUDA (bf16 autocast with the scaler on CPU); bf16 alone means bf16
// autocast without a scaler. The scaler is make_loss_scaler(scaler_kind, scaler).
struct PrecisionSettings {
  bool fp16 = false;
  bool bf16 = false;
  // As DeepSpeed picks it: a DeepSpeed JSON's fp16 section gives FP16_Optimizer
  // without ZeRO and DynamicLossScaler with ZeRO stage >= 1; the YAML `fp16`
  // section keeps DynamicLossScaler.
  LossScalerKind scaler_kind = LossScalerKind::kDynamicLossScaler;
  LossScalerOptions scaler;
};

// Mixed precision as a run on one device applies it, decided once: the forward's autocast
// (fp16 on CUDA; bf16 when asked for, and for fp16 on a CPU with bf16 instructions, where
// LibTorch's autocast has no fp16; none for fp16 on a CPU without them, util/cpu_bf16.h) and
// the loss scaler (fp16 only). The loop takes the autocast state, the optimizer step the
// scaler.
struct Precision {
  std::optional<AutocastState> autocast;  // none: fp32
  std::unique_ptr<LossScaler> scaler;     // null without fp16
  std::string description;                // the log line; empty in fp32
};

// `cpu_bf16`: whether the CPU has bf16 instructions (cpu_has_bf16_instructions()).
Precision resolve_precision(const PrecisionSettings& settings, const c10::Device& device,
                            bool cpu_bf16);
Precision resolve_precision(const PrecisionSettings& settings, const c10::Device& device);

}  // namespace olv2
