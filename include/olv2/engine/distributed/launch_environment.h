#pragma once
// A process's place in a multi-process run, read from its launcher's environment: torchrun's,
// DeepSpeed's or srun's.
#include <cstdint>
#include <string>

#include "olv2/engine/distributed/launch_variables.h"

namespace olv2 {

// Where this process stands in a multi-process run, as the launcher says: torchrun's
// environment (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), the
// DeepSpeed launcher's (LOCAL_SIZE, `--local_rank=N`), srun's (slurm_environment.h), or one
// process.
struct LaunchEnvironment {
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t local_rank = 0;
  int64_t local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  bool distributed() const { return world_size > 1; }
};

// Whether `launcher` (a `--launcher` value) starts a process group: every launcher but "none".
inline bool launcher_is_distributed(const std::string& launcher) { return launcher != "none"; }

// Reads the launch environment for the program's `--launcher` ("none", "pytorch" or "slurm");
// the `--local_rank` flag counts where the environment has no LOCAL_RANK. With "none" this is
// one process (and WORLD_SIZE > 1 in the environment is a bad invocation asking for --launcher
// pytorch: N copies would run alone side by side). With "pytorch", RANK and WORLD_SIZE are
// required; "slurm" reads srun's variables as mmcv does (slurm_environment.h). Every missing or
// malformed value is an input error naming the variable.
LaunchEnvironment launch_environment(const std::string& launcher, int local_rank_flag,
                                     const LaunchVariables& variables = process_launch_variables());

}  // namespace olv2
