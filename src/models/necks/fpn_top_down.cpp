#include "olv2/models/necks/fpn_top_down.h"

#include <torch/torch.h>

namespace olv2 {

void add_top_down(std::vector<at::Tensor>& laterals) {
  for (size_t i = laterals.size() - 1; i > 0; --i) {
    const at::Tensor& finer = laterals[i - 1];
    laterals[i - 1] =
        finer + torch::nn::functional::interpolate(
                    laterals[i], torch::nn::functional::InterpolateFuncOptions()
                                     .size(std::vector<int64_t>{finer.size(2), finer.size(3)})
                                     .mode(torch::kNearest));
  }
}

}  // namespace olv2
