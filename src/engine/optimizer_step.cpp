#include "olv2/engine/optimizer_step.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "olv2/engine/logging/python_format.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

[[noreturn]] void throw_non_finite_gradient(const TrainableParams& params, double norm,
                                            int64_t iteration) {
  at::NoGradGuard no_grad;
  std::string culprit = "a parameter";
  for (size_t i = 0; i < params.tensors.size(); ++i) {
    const at::Tensor& grad = params.tensors[i].grad();
    if (grad.defined() && !grad.isfinite().all().item<bool>()) {
      const bool has_nan = grad.isnan().any().item<bool>();
      culprit = "`" + params.names[i] + "` (" + (has_nan ? "nan" : "inf") + ")";
      break;
    }
  }
  throw runtime_error("iter " + std::to_string(iteration) + ": the gradient of " + culprit +
                      " is not finite (global norm " + python_float_repr(norm) +
                      ") although the loss is; stopped before the optimizer step would write it "
                      "into the weights");
}

}  // namespace

StepOutcome apply_optimizer_step(torch::optim::Optimizer& optimizer, const TrainableParams& params,
                                 LossScaler* scaler, const std::optional<GradClipOptions>& clip,
                                 GradientSync& sync, int64_t iteration) {
  StepOutcome outcome;
  bool overflow = false;
  if (scaler != nullptr) {
    outcome.loss_scale = scaler->scale();
    overflow = scaler->unscale_and_check(params.tensors);
  }
  overflow = sync.synchronize(params.tensors, overflow);
  if (overflow && scaler != nullptr) {
    outcome.applied = false;
    outcome.grad_norm = std::numeric_limits<double>::quiet_NaN();
    scaler->update(true);
    return outcome;
  }
  GradClipOptions measure_only;
  measure_only.max_norm = std::numeric_limits<double>::infinity();
  outcome.grad_norm = clip_grad_norm(params.tensors, clip ? *clip : measure_only);
  if (!std::isfinite(outcome.grad_norm)) {
    // With a scaler the check above already caught it; without one nothing else would.
    throw_non_finite_gradient(params, outcome.grad_norm, iteration);
  }
  optimizer.step();
  if (scaler != nullptr) scaler->update(false);
  return outcome;
}

}  // namespace olv2
