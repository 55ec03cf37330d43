#include "olv2/util/threads.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

int available_cores() { return platform::usable_cpu_count(); }

int default_thread_count() {
  int local_world = 1;
  if (const char* env = std::getenv("LOCAL_WORLD_SIZE"); env != nullptr && *env != '\0') {
    try {
      local_world = std::max(1, std::stoi(env));
    } catch (const std::exception&) {
      throw input_error(std::string("LOCAL_WORLD_SIZE=") + env + ": expected a positive integer");
    }
  }
  return std::max(1, available_cores() / local_world);
}

void set_thread_count(int threads) {
  if (threads < 1)
    throw input_error("--threads " + std::to_string(threads) + ": expected at least 1");
  at::set_num_threads(threads);
}

}  // namespace olv2
