#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace olv2 {

// The collectives the engine and the models use, without knowing how ranks talk to each other.
// Every rank must make the same calls in the same order with tensors of the same shapes.
class Collective {
 public:
  virtual ~Collective() = default;
  virtual int64_t rank() const = 0;
  virtual int64_t world_size() const = 0;
  // Sums every tensor over the ranks, in place.
  virtual void all_reduce_sum(std::vector<at::Tensor>& tensors) = 0;
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
 public:
  int64_t rank() const override { return 0; }
  int64_t world_size() const override { return 1; }
  void all_reduce_sum(std::vector<at::Tensor>& /*tensors*/) override {}
  void broadcast(std::vector<at::Tensor>& /*tensors*/, int64_t /*root*/) override {}
  std::vector<std::string> all_gather_bytes(const std::string& bytes) override { return {bytes}; }
  void barrier() override {}
  std::string backend() const override { return "none"; }
};

// The collective of this process: a SingleProcessCollective until the engine installs the
// process group's.
Collective& process_collective();
void install_process_collective(std::shared_ptr<Collective> collective);

// The mean of `value` over the ranks of the process collective (mmdet's reduce_mean).
double all_reduce_mean(double value);

}  // namespace olv2
