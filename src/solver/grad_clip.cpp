#include "olv2/solver/grad_clip.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

namespace olv2 {

double clip_grad_norm(const std::vector<at::Tensor>& params, const GradClipOptions& options) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& param : params) {
    if (param.grad().defined()) grads.push_back(param.grad());
  }
  if (grads.empty()) return 0.0;
  at::NoGradGuard no_grad;
  const at::Device device = grads.front().device();
  std::vector<at::Tensor> norms;
  norms.reserve(grads.size());
  at::Tensor total;
  if (std::isinf(options.norm_type)) {
    for (const at::Tensor& grad : grads) norms.push_back(grad.detach().abs().max().to(device));
    total = at::stack(norms).max();
  } else {
    for (const at::Tensor& grad : grads) {
      norms.push_back(at::norm(grad.detach(), options.norm_type).to(device));
    }
    total = at::norm(at::stack(norms), options.norm_type);
  }
  const double total_norm = total.item<double>();
  if (!std::isfinite(total_norm)) return total_norm;
  // The coefficient is a tensor of the gradients' dtype, as in PyTorch.
  const at::Tensor coefficient = options.max_norm / (total + 1e-6);
  if (coefficient.item<double>() < 1.0) {
    for (at::Tensor& grad : grads) grad.detach().mul_(coefficient.to(grad.device()));
  }
  return total_norm;
}

}  // namespace olv2
