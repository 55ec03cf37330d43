#pragma once
// The collectives of a multi-process run over c10d's Gloo or NCCL process groups, with a heartbeat
// that names lost ranks.
#include <c10/core/Device.h>
#include <c10/util/intrusive_ptr.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "olv2/engine/distributed/distributed_options.h"
#include "olv2/engine/distributed/launch_environment.h"
#include "olv2/util/collective.h"
#include "olv2/util/compat.h"

namespace c10d {
class Store;
}

namespace olv2 {

// The collectives of a multi-process run over c10d: a TCPStore rendezvous at MASTER_ADDR:
// MASTER_PORT (rank 0 hosts it), then a Gloo process group on the CPU or an NCCL one on CUDA
// (`dist_params.backend` may force either; NCCL only where LibTorch has it). Each rank beats a
// heartbeat into the store, so that when a collective fails (a rank crashed, was killed, or
// stopped answering within `dist_params.timeout_s`) the runtime error names the lost ranks.
class ProcessGroupCollective : public Collective {
 public:
  ProcessGroupCollective(const LaunchEnvironment& env, const DistributedOptions& options,
                         const c10::Device& device);
  ~ProcessGroupCollective() override;
  ProcessGroupCollective(const ProcessGroupCollective&) = delete;
  ProcessGroupCollective& operator=(const ProcessGroupCollective&) = delete;

  int64_t rank() const override { return env_.rank; }
  int64_t world_size() const override { return env_.world_size; }
  void all_reduce_sum(std::vector<at::Tensor>& tensors) override;
  std::unique_ptr<PendingCollective> start_all_reduce_sum(at::Tensor tensor) override;
  std::unique_ptr<PendingCollective> start_reduce_scatter_sum(at::Tensor input,
                                                              at::Tensor part) override;
  std::string reduce_scatter_method() const override;
  void all_gather(const at::Tensor& part, at::Tensor& output) override;
  void broadcast(std::vector<at::Tensor>& tensors, int64_t root) override;
  std::vector<std::string> all_gather_bytes(const std::string& bytes) override;
  void barrier() override;
  std::string backend() const override { return backend_; }

 private:
  template <typename Operation>
  void guarded(const char* what, Operation&& operation);
  std::string lost_ranks();
  bool native_reduce_scatter() const;
  class Pending;
  void beat();

  LaunchEnvironment env_;
  DistributedOptions options_;
  c10::Device device_;
  std::string backend_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<compat::C10dBackend> group_;
  std::atomic<bool> stopping_{false};
  std::thread heartbeat_;
};

// The backend `dist_params.backend` asks for, else NCCL on CUDA and Gloo on the CPU. NCCL asked
// for without CUDA, or in a LibTorch without NCCL, falls back to Gloo with a warning (the
// original configs name nccl).
std::string choose_backend(const DistributedOptions& options, const c10::Device& device);

}  // namespace olv2
