#include "olv2/engine/precision/precision.h"

#include "olv2/engine/precision/make_loss_scaler.h"

namespace olv2 {

Precision resolve_precision(const PrecisionSettings& settings, const c10::Device& device) {
  Precision precision;
  if (!settings.fp16 && !settings.bf16) return precision;
  AutocastState autocast;
  autocast.enabled = true;
  autocast.dtype =
      (settings.fp16 && device.is_cuda()) ? c10::ScalarType::Half : c10::ScalarType::BFloat16;
  precision.autocast = autocast;
  if (settings.fp16) {
    precision.scaler = make_loss_scaler(settings.scaler_kind, settings.scaler);
    precision.description = std::string("mixed precision: ") +
                            (device.is_cuda() ? "fp16" : "bf16 (fp16 is CUDA-only)") +
                            " autocast with " + precision.scaler->describe();
  } else {
    precision.description = "mixed precision: bf16 autocast, no loss scaler";
  }
  return precision;
}

}  // namespace olv2
