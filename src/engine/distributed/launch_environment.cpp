#include "olv2/engine/distributed/launch_environment.h"

#include <optional>
#include <string>

#include "olv2/engine/distributed/slurm_environment.h"
#include "olv2/util/error.h"

namespace olv2 {

LaunchEnvironment launch_environment(const std::string& launcher, int local_rank_flag,
                                     const LaunchVariables& variables) {
  if (launcher == "slurm") return slurm_launch_environment(variables);
  LaunchEnvironment env;
  const int64_t world_size = integer_variable(variables, "WORLD_SIZE", 1, 1, 1 << 20);
  if (launcher == "none") {
    if (world_size > 1) {
      throw input_error("WORLD_SIZE=" + std::to_string(world_size) +
                        " in the environment but --launcher none: add --launcher pytorch, or "
                        "each of the processes runs alone");
    }
    env.local_rank = local_rank_flag;
    return env;
  }
  if (!variables("RANK") || !variables("WORLD_SIZE")) {
    throw input_error(
        "--launcher pytorch needs RANK and WORLD_SIZE in the environment (torchrun, the "
        "DeepSpeed launcher or scripts/dist_train.sh set them)");
  }
  env.world_size = world_size;
  env.rank = integer_variable(variables, "RANK", 0, 0, world_size - 1);
  // The DeepSpeed launcher passes --local_rank=N; torchrun sets LOCAL_RANK.
  env.local_rank = integer_variable(variables, "LOCAL_RANK", local_rank_flag, 0, world_size - 1);
  env.local_world_size = integer_variable(
      variables, "LOCAL_WORLD_SIZE",
      integer_variable(variables, "LOCAL_SIZE", world_size, 1, world_size), 1, world_size);
  if (const auto addr = variables("MASTER_ADDR")) env.master_addr = *addr;
  env.master_port = static_cast<int>(integer_variable(variables, "MASTER_PORT", 29500, 1, 65535));
  return env;
}

}  // namespace olv2
