#pragma once
// The collectives across ranks the engine and models use, the one-process case, and the process's
// own collective.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace olv2 {

// A collective running in the background. wait() returns once its result is in place and
// rethrows its failure; a pending collective must be waited for before its tensors are read.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
};

// The collectives the engine and the models use, without knowing how ranks talk to each other.
// Every rank must make the same calls in the same order with tensors of the same shapes.
class Collective {
 public:
  virtual ~Collective() = default;
  virtual int64_t rank() const = 0;
  virtual int64_t world_size() const = 0;
  // Sums every tensor over the ranks, in place.
  virtual void all_reduce_sum(std::vector<at::Tensor>& tensors) = 0;
  // Starts summing `tensor` over the ranks, in place.
  virtual std::unique_ptr<PendingCollective> start_all_reduce_sum(at::Tensor tensor) = 0;
  // Starts reducing `input` (world_size() equal consecutive parts) so that rank r's `part`
  // receives the sum over the ranks of their part r.
  virtual std::unique_ptr<PendingCollective> start_reduce_scatter_sum(at::Tensor input,
                                                                      at::Tensor part) = 0;
  // How start_reduce_scatter_sum runs: "reduce-scatter", or how the backend emulates it.
  virtual std::string reduce_scatter_method() const = 0;
  // Fills `output` (world_size() equal consecutive parts) with every rank's `part`, in rank
  // order.
  virtual void all_gather(const at::Tensor& part, at::Tensor& output) = 0;
  // Copies rank `root`'s tensors into every rank's, in place.
  virtual void broadcast(std::vector<at::Tensor>& tensors, int64_t root) = 0;
  // Every rank's `bytes`, in rank order.
  virtual std::vector<std::string> all_gather_bytes(const std::string& bytes) = 0;
  virtual void barrier() = 0;
  // "gloo", "nccl" or "none".
  virtual std::string backend() const = 0;
};

// One process: every collective is the identity.
class SingleProcessCollective : public Collective {
  struct Done : PendingCollective {
    void wait() override {}
  };

 public:
  int64_t rank() const override { return 0; }
  int64_t world_size() const override { return 1; }
  void all_reduce_sum(std::vector<at::Tensor>& /*tensors*/) override {}
  std::unique_ptr<PendingCollective> start_all_reduce_sum(at::Tensor /*tensor*/) override {
    return std::make_unique<Done>();
  }
  std::unique_ptr<PendingCollective> start_reduce_scatter_sum(at::Tensor input,
                                                              at::Tensor part) override {
    part.copy_(input.view_as(part));
    return std::make_unique<Done>();
  }
  std::string reduce_scatter_method() const override { return "none"; }
  void all_gather(const at::Tensor& part, at::Tensor& output) override {
    output.copy_(part.view_as(output));
  }
  void broadcast(std::vector<at::Tensor>& /*tensors*/, int64_t /*root*/) override {}
  std::vector<std::string> all_gather_bytes(const std::string& bytes) override { return {bytes}; }
  void barrier() override {}
  std::string backend() const override { return "none"; }
};

// The collective of this process: a SingleProcessCollective until the engine installs the
// process group's.
Collective& process_collective();
void install_process_collective(std::shared_ptr<Collective> collective);

// Rank 0's `decision`, on every rank of `collective` (a broadcast: every rank calls it).
bool rank_zero_decision(Collective& collective, bool decision);

// The mean of `value` over the ranks of the process collective (mmdet's reduce_mean).
double all_reduce_mean(double value);

}  // namespace olv2
