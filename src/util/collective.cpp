#include "olv2/util/collective.h"

#include <ATen/ATen.h>

namespace olv2 {

namespace {

std::shared_ptr<Collective>& installed() {
  static std::shared_ptr<Collective> collective = std::make_shared<SingleProcessCollective>();
  return collective;
}

}  // namespace

Collective& process_collective() { return *installed(); }

void install_process_collective(std::shared_ptr<Collective> collective) {
  installed() = collective ? std::move(collective) : std::make_shared<SingleProcessCollective>();
}

bool rank_zero_decision(Collective& collective, bool decision) {
  std::vector<at::Tensor> flag = {at::full({1}, decision ? 1.0 : 0.0, at::kFloat)};
  collective.broadcast(flag, 0);
  return flag[0].item<double>() > 0.0;
}

double all_reduce_mean(double value) {
  Collective& collective = process_collective();
  if (collective.world_size() == 1) return value;
  std::vector<at::Tensor> tensors = {at::full({1}, value, at::kDouble)};
  collective.all_reduce_sum(tensors);
  return tensors[0].item<double>() / static_cast<double>(collective.world_size());
}

}  // namespace olv2
