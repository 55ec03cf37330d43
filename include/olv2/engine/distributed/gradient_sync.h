#pragma once
// How the ranks' gradients meet within an optimizer step: the interface the loop and the optimizer
// call, and the one-process case.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "olv2/util/collective.h"

namespace olv2 {

// Where a rank's averaged gradients are once the step's communication is complete.
struct SyncedGradients {
  // The tensors whose gradients the step unscales, clips and steps with.
  std::vector<at::Tensor> holders;
  // Set when `holders` are this rank's part of the gradients only (ZeRO stage 2): an overflow
  // and the global norm are then combined over these ranks, the norm from `pieces`.
  Collective* parts_over = nullptr;
  // With `parts_over`: the holders' gradients cut at parameter boundaries (views), so that the
  // norm sums per-parameter norms as the unsharded step does.
  std::vector<at::Tensor> pieces;

  // Every rank holds the whole averaged gradients in `holders`.
  static SyncedGradients whole(std::vector<at::Tensor> holders) {
    SyncedGradients synced;
    synced.holders = std::move(holders);
    return synced;
  }
};

// How the gradients of every rank meet within an optimizer step. The loop calls
// before_backward before each micro-batch's backward, the optimizer step calls finish after
// the last one: multi-process training installs a collective implementation.
class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // `loss` is the tensor the backward starts from; `last`: the step's last micro-batch.
  virtual void before_backward(const at::Tensor& /*loss*/, bool /*last*/) {}
  // Completes the step's communication; `params` are the optimizer's parameters.
  virtual SyncedGradients finish(const std::vector<at::Tensor>& params) = 0;
  virtual std::string describe() const = 0;
};

// One process: its gradients are already the whole batch's.
class SingleProcessGradientSync : public GradientSync {
 public:
  SyncedGradients finish(const std::vector<at::Tensor>& params) override {
    return SyncedGradients::whole(params);
  }
  std::string describe() const override { return "one process: no gradient all-reduce"; }
};

}  // namespace olv2
