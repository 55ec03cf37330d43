#include "olv2/engine/optimizer/training_optimizer.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cmath>
#include <limits>
#include <utility>

#include "olv2/engine/logging/python_format.h"
#include "olv2/solver/optimizer.h"
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

bool any_rank(Collective& collective, bool flag) {
  std::vector<at::Tensor> flags = {at::full({1}, flag ? 1.0 : 0.0, at::kFloat)};
  collective.all_reduce_sum(flags);
  return flags[0].item<double>() > 0.0;
}

}  // namespace

TrainingOptimizer::TrainingOptimizer(TrainableParams params, std::unique_ptr<LossScaler> scaler)
    : params_(std::move(params)), scaler_(std::move(scaler)) {}

TrainingOptimizer::~TrainingOptimizer() = default;

void TrainingOptimizer::backward(const at::Tensor& loss, bool last) {
  const at::Tensor backward_from = scaler_ != nullptr ? scaler_->scale_loss(loss) : loss;
  before_backward(backward_from, last);
  backward_from.backward();
}

StepOutcome TrainingOptimizer::step(const std::optional<GradClipOptions>& clip, int64_t iteration) {
  StepOutcome outcome;
  synchronize();
  const SyncedGradients synced = std::move(*synced_);
  synced_.reset();
  bool overflow = false;
  if (scaler_ != nullptr) {
    outcome.loss_scale = scaler_->scale();
    overflow = scaler_->unscale_and_check(synced.holders);
    if (synced.parts_over != nullptr) overflow = any_rank(*synced.parts_over, overflow);
  }
  if (overflow) {
    outcome.applied = false;
    outcome.grad_norm = std::numeric_limits<double>::quiet_NaN();
    scaler_->update(true);
    return outcome;
  }
  GradClipOptions measure_only;
  measure_only.max_norm = std::numeric_limits<double>::infinity();
  const GradClipOptions& clipping = clip ? *clip : measure_only;
  outcome.grad_norm = synced.parts_over != nullptr
                          ? clip_gradient_pieces(synced.pieces, clipping, *synced.parts_over)
                          : clip_grad_norm(synced.holders, clipping);
  if (!std::isfinite(outcome.grad_norm)) {
    // With a scaler the check above already caught it; without one nothing else would.
    throw_non_finite_gradient(params_, outcome.grad_norm, iteration);
  }
  update();
  if (scaler_ != nullptr) scaler_->update(false);
  return outcome;
}

const SyncedGradients& TrainingOptimizer::synchronize() {
  if (!synced_) synced_ = finish_synchronization();
  return *synced_;
}

std::vector<double> TrainingOptimizer::lrs() const { return group_lrs(param_groups()); }

void TrainingOptimizer::set_lrs(const std::vector<double>& lrs) {
  set_group_lrs(param_groups(), lrs);
}

}  // namespace olv2
