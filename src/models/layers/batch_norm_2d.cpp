#include "olv2/models/layers/batch_norm_2d.h"

#include <torch/autograd.h>
#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

// The sum over the ranks of the process collective, differentiable: the gradient of every
// rank's copy of the sum flows back to every rank's summand, so backward sums the incoming
// gradients over the ranks too (torch.distributed.nn's all_reduce).
class AllReduceSum : public torch::autograd::Function<AllReduceSum> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* /*ctx*/, const at::Tensor& x) {
    std::vector<at::Tensor> sum = {x.clone()};
    process_collective().all_reduce_sum(sum);
    return sum[0];
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* /*ctx*/,
                                                 torch::autograd::variable_list grads) {
    std::vector<at::Tensor> sum = {grads[0].contiguous().clone()};
    process_collective().all_reduce_sum(sum);
    return {sum[0]};
  }
};

}  // namespace

Schema BatchNormOptions::schema() {
  Schema schema = Schema::map();
  schema.required("type", Schema::string().choices({"BN", "SyncBN"}));
  schema.optional("requires_grad", Schema::boolean());
  return schema;
}

BatchNormOptions BatchNormOptions::from_config(const ConfigNode& section) {
  BatchNormOptions options;
  options.synchronized = section.at("type").as_string() == "SyncBN";
  options.requires_grad = section.get<bool>("requires_grad", options.requires_grad);
  return options;
}

BatchNorm2dLayerImpl::BatchNorm2dLayerImpl(int64_t channels, const BatchNormOptions& options)
    : channels_(channels), options_(options) {
  reset();
}

void BatchNorm2dLayerImpl::reset() {
  weight = register_parameter("weight", torch::ones({channels_}), options_.requires_grad);
  bias = register_parameter("bias", torch::zeros({channels_}), options_.requires_grad);
  running_mean = register_buffer("running_mean", torch::zeros({channels_}));
  running_var = register_buffer("running_var", torch::ones({channels_}));
  num_batches_tracked = register_buffer("num_batches_tracked", torch::zeros({}, torch::kLong));
}

at::Tensor BatchNorm2dLayerImpl::forward(const at::Tensor& x) {
  if (options_.synchronized && is_training() && process_collective().world_size() > 1) {
    return synchronized_forward(x);
  }
  if (is_training()) num_batches_tracked.add_(1);
  namespace F = torch::nn::functional;
  return F::batch_norm(x, running_mean, running_var,
                       F::BatchNormFuncOptions()
                           .weight(weight)
                           .bias(bias)
                           .training(is_training())
                           .momentum(kMomentum)
                           .eps(kEps));
}

at::Tensor BatchNorm2dLayerImpl::synchronized_forward(const at::Tensor& x) {
  if (x.dim() != 4) {
    throw runtime_error("SyncBN: expected a 4-D input [N, C, H, W], got " +
                        std::to_string(x.dim()) + " dimensions");
  }
  const int64_t channels = x.size(1);
  // Statistics in float32 whatever the input's dtype, as BatchNorm under autocast.
  const at::Tensor input = x.to(at::kFloat);
  const std::vector<int64_t> reduced = {0, 2, 3};
  const double local_count = static_cast<double>(input.numel() / channels);
  // The channel sums and the element count travel in one all-reduce.
  const at::Tensor sums = AllReduceSum::apply(
      at::cat({input.sum(reduced), at::full({1}, local_count, input.options())}));
  const at::Tensor count = sums.narrow(0, channels, 1).detach();
  const double total = count.item<double>();
  if (total <= 1.0) {
    throw runtime_error(
        "SyncBN: expected more than 1 value per channel over all ranks when training, got " +
        std::to_string(static_cast<int64_t>(total)));
  }
  const at::Tensor mean = sums.narrow(0, 0, channels) / count;
  const at::Tensor centred = input - mean.view({1, channels, 1, 1});
  const at::Tensor var = AllReduceSum::apply(centred.pow(2).sum(reduced)) / count;
  const at::Tensor invstd = at::rsqrt(var + kEps);
  const at::Tensor out =
      centred * invstd.view({1, channels, 1, 1}) * weight.view({1, channels, 1, 1}) +
      bias.view({1, channels, 1, 1});
  {
    torch::NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    running_mean.mul_(1.0 - kMomentum).add_(mean.detach().to(running_mean.dtype()), kMomentum);
    running_var.mul_(1.0 - kMomentum)
        .add_((var.detach() * (total / (total - 1.0))).to(running_var.dtype()), kMomentum);
  }
  return out.to(x.scalar_type());
}

}  // namespace olv2
