#pragma once
// Starting one process of a `train_ds` or `test_ds` launch: its threads, device and process group.
#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "olv2/engine/distributed/launch_environment.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/launch_options.h"
#include "olv2/util/collective.h"

namespace olv2 {

// One process of a program's launch (train_ds, test_ds): where it stands, the device it runs
// on and how it talks to the other ranks.
struct LaunchedProcess {
  LaunchEnvironment launch;
  c10::Device device = c10::Device(c10::kCPU);
  std::shared_ptr<Collective> collective;
};

// Starts this process's part of a launch: the thread count (`threads`, else the config's, else
// the cores divided by the ranks on this node), the rank's device (`device`, else its GPU when
// one is visible, else the CPU) with its memory cap (`cuda_memory_cap_gib`, logged), and for
// --launcher pytorch or slurm the process group (one rank included), installed process-wide so
// that models reach it.
LaunchedProcess start_launched_process(const LaunchOptions& options, const EngineOptions& engine);

// Runs `body` on this rank. An error of a rank other than 0 is rethrown with "rank <r>: " in
// front, so that the console says which rank failed; rank 0's errors stay as they are.
void run_on_rank(const Collective& collective, const std::function<void()>& body);

}  // namespace olv2
