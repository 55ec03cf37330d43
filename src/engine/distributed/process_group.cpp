#include "olv2/engine/distributed/process_group.h"

#include <ATen/ATen.h>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cstdlib>
#include <cstring>
#include <functional>

#include "olv2/engine/logging/python_format.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds kHeartbeatPeriod{500};

// torchrun's agent hosts the store itself and restarts the ranks in new attempts; each
// attempt's keys live under their own prefix, as torch's env:// rendezvous keeps them.
bool agent_hosts_store() {
  return platform::environment_variable("TORCHELASTIC_USE_AGENT_STORE") == "True";
}

std::string attempt_prefix() {
  return "/worker/attempt_" +
         platform::environment_variable("TORCHELASTIC_RESTART_COUNT").value_or("0");
}

std::string heartbeat_key(int64_t rank) {
  return attempt_prefix() + "/olv2/heartbeat/" + std::to_string(rank);
}

// The rendezvous (`rendezvous` true: every rank counts itself in and waits for all), or one more
// client connection to the same store.
c10::intrusive_ptr<c10d::Store> connect_store(const LaunchEnvironment& env, bool rendezvous,
                                              milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(env.master_port);
  options.isServer = rendezvous && env.rank == 0 && !agent_hosts_store();
  options.numWorkers = static_cast<size_t>(env.world_size);
  options.waitWorkers = rendezvous;
  options.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
}

// The address Gloo's connections use: the interface GLOO_SOCKET_IFNAME names; loopback for a
// local run; else this host's address on the route to MASTER_ADDR (the host name's address,
// Gloo's own default, is often loopback, which other hosts cannot reach).
std::shared_ptr<::gloo::transport::Device> gloo_device(const LaunchEnvironment& env) {
  if (const auto interface = platform::environment_variable("GLOO_SOCKET_IFNAME")) {
    try {
      return c10d::ProcessGroupGloo::createDeviceForInterface(*interface);
    } catch (const std::exception& error) {
      std::string message = error.what();
      message = message.substr(0, message.find('\n'));
      throw input_error("GLOO_SOCKET_IFNAME=" + *interface +
                        ": Gloo cannot use this network interface on this host (" + message +
                        "); name an interface that has an address, or unset it");
    }
  }
  if (env.master_addr == "127.0.0.1" || env.master_addr == "localhost") {
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  }
  if (const auto local = platform::local_address_towards(env.master_addr)) {
    spdlog::info("rank {}: Gloo connects from {}, this host's address towards MASTER_ADDR {}",
                 env.rank, *local, env.master_addr);
    return c10d::ProcessGroupGloo::createDeviceForHostname(*local);
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

std::string choose_backend(const DistributedOptions& options, const c10::Device& device) {
  const std::string backend =
      options.backend.empty() ? (device.is_cuda() ? "nccl" : "gloo") : options.backend;
  if (backend != "nccl") return backend;
#ifdef USE_C10D_NCCL
  const bool nccl_built = true;
#else
  const bool nccl_built = false;
#endif
  if (nccl_built && device.is_cuda()) return backend;
  // The original configs name nccl; the same config must run on the CPU.
  spdlog::warn(
      "dist_params.backend nccl needs CUDA and a LibTorch built with NCCL ({}): using gloo",
      device.is_cuda() ? "this one has no NCCL" : "this rank runs on the CPU");
  return "gloo";
}

ProcessGroupCollective::ProcessGroupCollective(const LaunchEnvironment& env,
                                               const DistributedOptions& options,
                                               const c10::Device& device)
    : env_(env), options_(options), device_(device), backend_(choose_backend(options, device)) {
  const milliseconds timeout(static_cast<int64_t>(options.timeout_s * 1000.0));
  try {
    store_ = c10::make_intrusive<c10d::PrefixStore>(
        attempt_prefix(), connect_store(env, /*rendezvous=*/true, timeout));
  } catch (const std::exception& error) {
    std::string message = error.what();
    message = message.substr(0, message.find('\n'));
    throw runtime_error("rank " + std::to_string(env.rank) + ": rendezvous at MASTER_ADDR " +
                        env.master_addr + ", MASTER_PORT " + std::to_string(env.master_port) +
                        " failed within dist_params.timeout_s (" +
                        python_float_repr(options.timeout_s) + " s): " + message +
                        " (they must name node 0's address, reachable from every node, and a "
                        "free port there)");
  }
  if (backend_ == "gloo") {
    auto gloo_options = c10d::ProcessGroupGloo::Options::create(timeout);
    gloo_options->devices.push_back(gloo_device(env));
    gloo_options->threads = 2;
    group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(
        store_, static_cast<int>(env.rank), static_cast<int>(env.world_size), gloo_options);
  } else {
#ifdef USE_C10D_NCCL
    auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
    nccl_options->timeout = timeout;
    group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(
        store_, static_cast<int>(env.rank), static_cast<int>(env.world_size), nccl_options);
#endif
  }
  heartbeat_ = std::thread([this] { beat(); });
}

ProcessGroupCollective::~ProcessGroupCollective() {
  stopping_ = true;
  if (heartbeat_.joinable()) heartbeat_.join();
#ifdef USE_C10D_NCCL
  // As torch.distributed.destroy_process_group: NCCL's communicators are finalised before the
  // group goes, which otherwise aborts them and warns at every exit.
  if (backend_ == "nccl") {
    try {
      static_cast<c10d::ProcessGroupNCCL*>(group_.get())->shutdown();
    } catch (const std::exception& error) {
      spdlog::warn("rank {}: NCCL shutdown: {}", env_.rank, error.what());
    }
  }
#endif
}

void ProcessGroupCollective::beat() {
  // Its own store connection: a TCPStore client is not meant to be shared between threads.
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store =
        connect_store(env_, false, milliseconds(static_cast<int64_t>(options_.timeout_s * 1000)));
    while (!stopping_) {
      store->add(heartbeat_key(env_.rank), 1);
      for (int i = 0; i < 10 && !stopping_; ++i) std::this_thread::sleep_for(kHeartbeatPeriod / 10);
    }
  } catch (const std::exception&) {
    // The store is gone (rank 0 ended); a failing collective reports it.
  }
}

std::string ProcessGroupCollective::lost_ranks() {
  try {
    auto store = connect_store(env_, false, milliseconds(2000));
    std::vector<int64_t> before;
    for (int64_t rank = 0; rank < env_.world_size; ++rank)
      before.push_back(store->add(heartbeat_key(rank), 0));
    std::this_thread::sleep_for(kHeartbeatPeriod * 4);
    std::string lost;
    for (int64_t rank = 0; rank < env_.world_size; ++rank) {
      if (rank != env_.rank && store->add(heartbeat_key(rank), 0) == before[rank])
        lost += (lost.empty() ? "" : ", ") + std::to_string(rank);
    }
    return lost.empty() ? "no rank stopped beating (a rank may be stuck)" : "lost rank " + lost;
  } catch (const std::exception&) {
    return "lost rank 0 (it hosts the rendezvous store, which no longer answers)";
  }
}

template <typename Operation>
void ProcessGroupCollective::guarded(const char* what, Operation&& operation) {
  try {
    operation();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {
    std::string message = error.what();
    message = message.substr(0, message.find('\n'));
    throw runtime_error("rank " + std::to_string(env_.rank) + ": " + what + " across " +
                        std::to_string(env_.world_size) + " ranks failed, " + lost_ranks() + " (" +
                        message + ")");
  }
}

void ProcessGroupCollective::all_reduce_sum(std::vector<at::Tensor>& tensors) {
  guarded("all-reduce", [&] {
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    std::vector<at::Tensor> staged;
    for (at::Tensor& tensor : tensors) {
      staged.push_back(backend_ == "nccl" ? tensor.to(device_) : tensor);
      std::vector<at::Tensor> one = {staged.back()};
      works.push_back(group_->allreduce(one));
    }
    for (auto& work : works) work->wait();
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (!staged[i].is_same(tensors[i])) tensors[i].copy_(staged[i]);
    }
  });
}

// A started c10d work; waiting translates its failure as every collective here does, then
// runs `finish` (copies back from a staged tensor, keeps a part of an emulation).
class ProcessGroupCollective::Pending : public PendingCollective {
 public:
  Pending(ProcessGroupCollective& owner, const char* what, c10::intrusive_ptr<c10d::Work> work,
          std::function<void()> finish)
      : owner_(owner), what_(what), work_(std::move(work)), finish_(std::move(finish)) {}
  void wait() override {
    owner_.guarded(what_, [&] { work_->wait(); });
    if (finish_) finish_();
  }

 private:
  ProcessGroupCollective& owner_;
  const char* what_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::function<void()> finish_;
};

std::unique_ptr<PendingCollective> ProcessGroupCollective::start_all_reduce_sum(at::Tensor tensor) {
  std::unique_ptr<PendingCollective> pending;
  guarded("all-reduce", [&] {
    at::Tensor staged = backend_ == "nccl" ? tensor.to(device_) : tensor;
    std::vector<at::Tensor> one = {staged};
    auto work = group_->allreduce(one);
    std::function<void()> finish;
    if (!staged.is_same(tensor)) finish = [tensor, staged]() mutable { tensor.copy_(staged); };
    pending = std::make_unique<Pending>(*this, "all-reduce", work, std::move(finish));
  });
  return pending;
}

bool ProcessGroupCollective::native_reduce_scatter() const {
  return backend_ == "nccl" || OLV2_GLOO_HAS_REDUCE_SCATTER;
}

std::string ProcessGroupCollective::reduce_scatter_method() const {
  if (native_reduce_scatter()) return backend_ + " reduce-scatter";
  return backend_ +
         " all-reduce keeping this rank's part (this LibTorch's Gloo has no "
         "reduce-scatter)";
}

std::unique_ptr<PendingCollective> ProcessGroupCollective::start_reduce_scatter_sum(
    at::Tensor input, at::Tensor part) {
  std::unique_ptr<PendingCollective> pending;
  guarded("reduce-scatter", [&] {
    at::Tensor flat = input.reshape({-1});
    if (native_reduce_scatter()) {
      at::Tensor output = part.reshape({-1});
      auto work = group_->_reduce_scatter_base(output, flat);
      std::function<void()> finish;
      if (!output.is_same(part))
        finish = [part, output]() mutable { part.copy_(output.view_as(part)); };
      pending = std::make_unique<Pending>(*this, "reduce-scatter", work, std::move(finish));
      return;
    }
    std::vector<at::Tensor> one = {flat};
    auto work = group_->allreduce(one);
    const int64_t size = part.numel();
    const int64_t offset = env_.rank * size;
    pending = std::make_unique<Pending>(*this, "reduce-scatter", work,
                                        [flat, part, offset, size]() mutable {
                                          part.copy_(flat.narrow(0, offset, size).view_as(part));
                                        });
  });
  return pending;
}

void ProcessGroupCollective::all_gather(const at::Tensor& part, at::Tensor& output) {
  guarded("all-gather", [&] {
    at::Tensor input = part.reshape({-1}).contiguous();
    std::vector<std::vector<at::Tensor>> outputs(1);
    at::Tensor flat = output.view({-1});
    const int64_t size = input.numel();
    for (int64_t r = 0; r < env_.world_size; ++r)
      outputs[0].push_back(flat.narrow(0, r * size, size));
    std::vector<at::Tensor> inputs = {input};
    group_->allgather(outputs, inputs)->wait();
  });
}

void ProcessGroupCollective::broadcast(std::vector<at::Tensor>& tensors, int64_t root) {
  guarded("broadcast", [&] {
    c10d::BroadcastOptions options;
    options.rootRank = root;
    for (at::Tensor& tensor : tensors) {
      std::vector<at::Tensor> one = {backend_ == "nccl" ? tensor.to(device_) : tensor};
      group_->broadcast(one, options)->wait();
      if (!one[0].is_same(tensor)) tensor.copy_(one[0]);
    }
  });
}

std::vector<std::string> ProcessGroupCollective::all_gather_bytes(const std::string& bytes) {
  std::vector<std::string> gathered;
  guarded("all-gather", [&] {
    const auto on_device = [&](const at::Tensor& t) {
      return backend_ == "nccl" ? t.to(device_) : t;
    };
    const auto gather = [&](const at::Tensor& mine) {
      std::vector<std::vector<at::Tensor>> outputs(1);
      for (int64_t r = 0; r < env_.world_size; ++r) outputs[0].push_back(at::empty_like(mine));
      std::vector<at::Tensor> inputs = {mine};
      group_->allgather(outputs, inputs)->wait();
      return outputs[0];
    };
    const std::vector<at::Tensor> sizes =
        gather(on_device(at::full({1}, static_cast<int64_t>(bytes.size()), at::kLong)));
    int64_t longest = 0;
    for (const at::Tensor& size : sizes) longest = std::max(longest, size.item<int64_t>());
    at::Tensor mine = at::zeros({std::max<int64_t>(longest, 1)}, at::kByte);
    std::memcpy(mine.data_ptr(), bytes.data(), bytes.size());
    const std::vector<at::Tensor> all = gather(on_device(mine));
    for (size_t r = 0; r < all.size(); ++r) {
      const at::Tensor host = all[r].cpu();
      gathered.emplace_back(static_cast<const char*>(host.data_ptr()),
                            static_cast<size_t>(sizes[r].item<int64_t>()));
    }
  });
  return gathered;
}

void ProcessGroupCollective::barrier() {
  guarded("barrier", [&] {
    c10d::BarrierOptions options;
    // NCCL's barrier is an all-reduce on a device: this rank's, not one guessed from the rank.
    if (device_.is_cuda()) options.device_ids = {device_.index()};
    group_->barrier(options)->wait();
  });
}

}  // namespace olv2
