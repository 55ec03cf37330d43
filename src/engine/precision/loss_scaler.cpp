#include "olv2/engine/precision/loss_scaler.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

// LibTorch's fused kernel exists for CUDA only (1.13 declares it for every
// backend).
bool unscale_on_cuda(const std::vector<at::Tensor>& grads, double inv_scale) {
  std::map<std::tuple<int, int>, std::vector<at::Tensor>> by_device_and_dtype;
  for (const at::Tensor& grad : grads) {
    by_device_and_dtype[{grad.device().index(), static_cast<int>(grad.scalar_type())}].push_back(
        grad);
  }
  std::vector<at::Tensor> flags;
  for (auto& [key, group] : by_device_and_dtype) {
    const auto options = at::TensorOptions().dtype(at::kFloat).device(group.front().device());
    at::Tensor found_inf = at::zeros({1}, options);
    const at::Tensor inv = at::full({1}, inv_scale, options);
    at::_amp_foreach_non_finite_check_and_unscale_(group, found_inf, inv);
    flags.push_back(found_inf.cpu());
  }
  return at::cat(flags).sum().item<double>() > 0.0;
}

bool unscale_on_host(const std::vector<at::Tensor>& grads, double inv_scale) {
  at::Tensor found = at::zeros({}, at::kBool);
  for (const at::Tensor& grad : grads) {
    at::Tensor g = grad;
    g.mul_(inv_scale);
    found = found.logical_or(g.isfinite().logical_not().any().cpu());
  }
  return found.item<bool>();
}

}  // namespace

bool unscale_gradients(const std::vector<at::Tensor>& params, double inv_scale) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> cuda_grads;
  std::vector<at::Tensor> other_grads;
  for (const at::Tensor& param : params) {
    const at::Tensor& grad = param.grad();
    if (!grad.defined()) continue;
    (grad.is_cuda() ? cuda_grads : other_grads).push_back(grad);
  }
  bool found = false;
  if (!cuda_grads.empty()) found = unscale_on_cuda(cuda_grads, inv_scale);
  if (!other_grads.empty()) found = unscale_on_host(other_grads, inv_scale) || found;
  return found;
}

std::string loss_scaler_kind_name(LossScalerKind kind) {
  return kind == LossScalerKind::kFp16Optimizer ? "FP16_Optimizer" : "DynamicLossScaler";
}

std::optional<LossScalerKind> loss_scaler_kind_from_name(const std::string& name) {
  for (const LossScalerKind kind :
       {LossScalerKind::kDynamicLossScaler, LossScalerKind::kFp16Optimizer}) {
    if (loss_scaler_kind_name(kind) == name) return kind;
  }
  return std::nullopt;
}

LossScaler::LossScaler(const LossScalerOptions& options)
    : options_(options),
      scale_(options.loss_scale > 0.0 ? options.loss_scale
                                      : std::ldexp(1.0, options.initial_scale_power)) {
  if (options_.loss_scale < 0.0) throw input_error("fp16.loss_scale must be >= 0");
  if (options_.loss_scale_window <= 0) throw input_error("fp16.loss_scale_window must be > 0");
  if (options_.min_loss_scale <= 0.0) throw input_error("fp16.min_loss_scale must be > 0");
}

bool LossScaler::unscale_and_check(const std::vector<at::Tensor>& params) const {
  return unscale_gradients(params, 1.0 / scale());
}

LossScalerState LossScaler::state() const {
  LossScalerState state;
  state.kind = kind();
  state.scale = scale_;
  state.cur_iter = cur_iter_;
  state.last_overflow_iter = last_overflow_iter_;
  state.skipped_steps = skipped_steps_;
  return state;
}

void LossScaler::load_state(const LossScalerState& state) {
  if (state.kind == kind()) {
    scale_ = state.scale;
    cur_iter_ = state.cur_iter;
    last_overflow_iter_ = state.last_overflow_iter;
    skipped_steps_ = state.skipped_steps;
    return;
  }
  throw input_error("the checkpoint's loss scaler state is DeepSpeed " +
                    loss_scaler_kind_name(state.kind) + "'s but this run uses DeepSpeed " +
                    loss_scaler_kind_name(kind()) +
                    " (FP16_Optimizer: a DeepSpeed JSON with fp16 and no ZeRO; "
                    "DynamicLossScaler: ZeRO stage >= 1 or the YAML fp16 section); resume with "
                    "the precision settings the checkpoint was trained with");
}

}  // namespace olv2
