#pragma once
// Building the loss scaler of either DeepSpeed rule, and describing it for the log.
#include <memory>
#include <string>

#include "olv2/engine/precision/loss_scaler.h"

namespace olv2 {

// The scaler of `kind` with `options` (each kind validates the options it uses).
std::unique_ptr<LossScaler> make_loss_scaler(LossScalerKind kind, const LossScalerOptions& options);

// What make_loss_scaler(kind, options)->describe() says, without building the scaler.
std::string describe_loss_scaler(LossScalerKind kind, const LossScalerOptions& options);

}  // namespace olv2
