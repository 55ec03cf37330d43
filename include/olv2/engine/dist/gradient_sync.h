#pragma once
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace olv2 {

// The point of the optimizer step where the gradients of every rank meet: after each rank has
// unscaled and checked its own gradients, before clipping. Multi-process training installs
// the collective implementation.
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // Makes `params`' gradients the average over ranks and returns whether any rank found an
  // overflow (`local_overflow` is this rank's finding).
  virtual bool synchronize(const std::vector<at::Tensor>& params, bool local_overflow) = 0;
  virtual std::string describe() const = 0;
};

// One process: its gradients are already the whole batch's.
class SingleProcessGradientSync : public GradientSync {
 public:
  bool synchronize(const std::vector<at::Tensor>& /*params*/, bool local_overflow) override {
    return local_overflow;
  }
  std::string describe() const override { return "one process: no gradient all-reduce"; }
};

}  // namespace olv2
