#include "olv2/solver/adam.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "olv2/util/error.h"

namespace olv2 {

Schema AdamOptions::schema(const std::string& type) {
  return common_schema(type)
      .optional("betas", Schema::sequence(Schema::number().range(0.0, 1.0)))
      .optional("eps", Schema::number().range(0.0, 1.0))
      .optional("amsgrad", Schema::boolean());
}

AdamOptions AdamOptions::from_config(const ConfigNode& section) {
  AdamOptions o;
  o.decoupled_weight_decay = section.at("type").as_string() == "AdamW";
  if (!o.decoupled_weight_decay) o.weight_decay = 0.0;  // torch.optim.Adam's default
  o.read_common(section);
  o.eps = section.get<double>("eps", o.eps);
  o.amsgrad = section.get<bool>("amsgrad", o.amsgrad);
  if (const ConfigNode* betas = section.find("betas"); betas != nullptr && !betas->is_null()) {
    const std::vector<double> values = betas->as_vector<double>();
    if (values.size() != 2) {
      throw input_error(betas->where() + ": expected two numbers [beta1, beta2], got " +
                        std::to_string(values.size()));
    }
    o.betas = {values[0], values[1]};
  }
  return o;
}

std::vector<std::pair<std::string, std::vector<double>>> AdamOptions::own_settings() const {
  return {{"betas", {betas[0], betas[1]}}, {"eps", {eps}}};
}

std::unique_ptr<torch::optim::OptimizerOptions> AdamOptions::group_options(
    double group_lr, double group_weight_decay) const {
  const std::tuple<double, double> torch_betas{betas[0], betas[1]};
  if (decoupled_weight_decay) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(group_lr)
                                                            .betas(torch_betas)
                                                            .eps(eps)
                                                            .weight_decay(group_weight_decay)
                                                            .amsgrad(amsgrad));
  }
  return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(group_lr)
                                                         .betas(torch_betas)
                                                         .eps(eps)
                                                         .weight_decay(group_weight_decay)
                                                         .amsgrad(amsgrad));
}

std::unique_ptr<torch::optim::Optimizer> AdamOptions::build_torch(
    std::vector<torch::optim::OptimizerParamGroup> groups) const {
  const std::unique_ptr<torch::optim::OptimizerOptions> defaults = group_options(lr, weight_decay);
  if (decoupled_weight_decay) {
    return std::make_unique<torch::optim::AdamW>(
        std::move(groups), static_cast<const torch::optim::AdamWOptions&>(*defaults));
  }
  return std::make_unique<torch::optim::Adam>(
      std::move(groups), static_cast<const torch::optim::AdamOptions&>(*defaults));
}

}  // namespace olv2
