#include "olv2/solver/grad_clip.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cmath>
#include <limits>

#include "olv2/util/error.h"

namespace olv2 {

Schema GradClipOptions::schema() {
  return Schema::map()
      .required("max_norm", Schema::number().range(0.0, 1e12))
      .optional("norm_type", Schema::number().allow_infinity());
}

GradClipOptions GradClipOptions::from_config(const ConfigNode& section) {
  GradClipOptions o;
  o.max_norm = section.at("max_norm").as_double();
  o.norm_type = section.get<double>("norm_type", o.norm_type);
  if (!(o.norm_type > 0.0)) {
    throw input_error(section.at("norm_type").where() + ": expected a norm order > 0");
  }
  return o;
}

namespace {

// Scales `grads` by max_norm / (total + 1e-6) when that is below 1; returns the total norm.
double clip_to(const std::vector<at::Tensor>& grads, const at::Tensor& total, double max_norm) {
  const double total_norm = total.item<double>();
  if (!std::isfinite(total_norm)) return total_norm;
  // The coefficient is a tensor of the gradients' dtype, as in PyTorch.
  const at::Tensor coefficient = max_norm / (total + 1e-6);
  if (coefficient.item<double>() < 1.0) {
    for (const at::Tensor& grad : grads) grad.detach().mul_(coefficient.to(grad.device()));
  }
  return total_norm;
}

}  // namespace

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
  return clip_to(grads, total, options.max_norm);
}

double clip_gradient_pieces(const std::vector<at::Tensor>& pieces, const GradClipOptions& options,
                            Collective& ranks) {
  at::NoGradGuard no_grad;
  const bool infinity = std::isinf(options.norm_type);
  // Each piece's norm as the unsharded step takes a parameter's (in its dtype), then combined.
  double local = 0.0;
  for (const at::Tensor& piece : pieces) {
    const double norm =
        (infinity ? piece.detach().abs().max() : at::norm(piece.detach(), options.norm_type))
            .item<double>();
    local = infinity ? std::max(local, norm) : local + std::pow(norm, options.norm_type);
  }
  const int64_t world = ranks.world_size();
  // The maximum through a sum: each rank fills its own slot.
  std::vector<at::Tensor> combined = {infinity ? at::zeros({world}, at::kDouble)
                                               : at::full({1}, local, at::kDouble)};
  if (infinity) combined[0][ranks.rank()] = local;
  ranks.all_reduce_sum(combined);
  const double total = infinity ? combined[0].max().item<double>()
                                : std::pow(combined[0][0].item<double>(), 1.0 / options.norm_type);
  const at::ScalarType dtype = pieces.empty() ? at::kFloat : pieces.front().scalar_type();
  return clip_to(pieces, at::scalar_tensor(total, at::TensorOptions().dtype(dtype)),
                 options.max_norm);
}

}  // namespace olv2
