#pragma once
#include <c10/core/Device.h>

#include "olv2/data/batch.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/util/autocast_guard.h"
#include "support/step_comparison.h"

namespace olv2::test {

// One training step of `model` on `batch`, without the optimizer: moved to `device`, train
// mode, dropout 0, the loss terms summed under `autocast` for that device, backward. The loss
// terms and every parameter's gradient come back on the CPU.
StepResult training_step(DetectorImpl& model, const Batch& batch, const c10::Device& device,
                         AutocastState autocast = {});

}  // namespace olv2::test
