#include "olv2/engine/precision/precision.h"

#include "olv2/engine/precision/make_loss_scaler.h"
#include "olv2/util/cpu_bf16.h"

namespace olv2 {

Precision resolve_precision(const PrecisionSettings& settings, const c10::Device& device,
                            bool cpu_bf16) {
  Precision precision;
  if (!settings.fp16 && !settings.bf16) return precision;
  const bool cuda = device.is_cuda();
  // fp16 on a CPU without bf16 instructions keeps the scaler and runs in fp32: emulated bf16
  // would be tens of times slower.
  if (!settings.fp16 || cuda || cpu_bf16) {
    AutocastState autocast;
    autocast.enabled = true;
    autocast.dtype = (settings.fp16 && cuda) ? c10::ScalarType::Half : c10::ScalarType::BFloat16;
    precision.autocast = autocast;
  }
  const std::string emulated =
      cuda || cpu_bf16 ? "" : " (this CPU has no bf16 instructions: LibTorch emulates them)";
  if (settings.fp16) {
    precision.scaler = make_loss_scaler(settings.scaler_kind, settings.scaler);
    std::string autocast = "fp16 autocast";
    if (!cuda) {
      autocast = cpu_bf16 ? "bf16 (fp16 is CUDA-only) autocast"
                          : "fp32 (fp16 is CUDA-only, and this CPU has no bf16 instructions)";
    }
    precision.description =
        "mixed precision: " + autocast + " with " + precision.scaler->describe();
  } else {
    precision.description = "mixed precision: bf16 autocast, no loss scaler" + emulated;
  }
  return precision;
}

Precision resolve_precision(const PrecisionSettings& settings, const c10::Device& device) {
  return resolve_precision(settings, device, cpu_has_bf16_instructions());
}

}  // namespace olv2
