#include "olv2/engine/distributed/launched_process.h"

#include <spdlog/spdlog.h>

#include "olv2/engine/distributed/process_group.h"
#include "olv2/util/cuda_device.h"
#include "olv2/util/cuda_memory_cap.h"
#include "olv2/util/error.h"
#include "olv2/util/threads.h"

namespace olv2 {
namespace {

std::string rank_prefixed(int64_t rank, const std::string& message) {
  const std::string prefix = "rank " + std::to_string(rank) + ": ";
  return message.rfind(prefix, 0) == 0 ? message : prefix + message;
}

}  // namespace

LaunchedProcess start_launched_process(const LaunchOptions& options, const EngineOptions& engine) {
  LaunchedProcess process;
  process.launch = launch_environment(options.launcher, options.local_rank);
  set_thread_count(options.threads.value_or(
      engine.threads.value_or(default_thread_count(process.launch.local_world_size))));
  process.device =
      select_training_device(process.launch.local_rank, device_choice_from_flag(options.device));
  if (options.cuda_memory_cap_gib) {
    spdlog::info("{}", apply_cuda_memory_cap(process.device, *options.cuda_memory_cap_gib));
  }
  if (launcher_is_distributed(options.launcher)) {
    process.collective =
        std::make_shared<ProcessGroupCollective>(process.launch, engine.dist, process.device);
  } else {
    process.collective = std::make_shared<SingleProcessCollective>();
  }
  install_process_collective(process.collective);
  return process;
}

void run_on_rank(const Collective& collective, const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    if (collective.rank() == 0) throw;
    throw Error(rank_prefixed(collective.rank(), error.what()), error.status());
  } catch (const std::exception& error) {
    if (collective.rank() == 0) throw;
    throw runtime_error(rank_prefixed(collective.rank(), error.what()));
  }
}

}  // namespace olv2
