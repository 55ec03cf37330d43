#include "olv2/engine/distributed/launch_environment.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

// A variable set to an empty value counts as unset, as in torchrun.
std::optional<std::string> variable(const char* name) {
  std::optional<std::string> value = platform::environment_variable(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

int64_t integer_variable(const char* name, int64_t fallback, int64_t min, int64_t max) {
  const std::optional<std::string> text = variable(name);
  if (!text) return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0' || value < min || value > max) {
    throw input_error("environment variable " + std::string(name) + "=" + *text +
                      ": expected an integer in [" + std::to_string(min) + ", " +
                      std::to_string(max) + "]");
  }
  return value;
}

}  // namespace

LaunchEnvironment launch_environment(const std::string& launcher, int local_rank_flag) {
  LaunchEnvironment env;
  const int64_t world_size = integer_variable("WORLD_SIZE", 1, 1, 1 << 20);
  if (launcher == "none") {
    if (world_size > 1) {
      throw input_error("WORLD_SIZE=" + std::to_string(world_size) +
                        " in the environment but --launcher none: add --launcher pytorch, or "
                        "each of the processes runs alone");
    }
    env.local_rank = local_rank_flag;
    return env;
  }
  if (!variable("RANK") || !variable("WORLD_SIZE")) {
    throw input_error(
        "--launcher pytorch needs RANK and WORLD_SIZE in the environment (torchrun, the "
        "DeepSpeed launcher or scripts/dist_train.sh set them)");
  }
  env.world_size = world_size;
  env.rank = integer_variable("RANK", 0, 0, world_size - 1);
  // The DeepSpeed launcher passes --local_rank=N; torchrun sets LOCAL_RANK.
  env.local_rank = integer_variable("LOCAL_RANK", local_rank_flag, 0, world_size - 1);
  env.local_world_size = integer_variable(
      "LOCAL_WORLD_SIZE", integer_variable("LOCAL_SIZE", world_size, 1, world_size), 1, world_size);
  if (const auto addr = variable("MASTER_ADDR")) env.master_addr = *addr;
  env.master_port = static_cast<int>(integer_variable("MASTER_PORT", 29500, 1, 65535));
  return env;
}

}  // namespace olv2
