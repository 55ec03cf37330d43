#include "olv2/util/threads.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

int available_cores() { return platform::usable_cpu_count(); }

int default_thread_count(int64_t local_world_size) {
  return std::max(1, available_cores() / static_cast<int>(std::max<int64_t>(1, local_world_size)));
}

void set_thread_count(int threads) {
  if (threads < 1)
    throw input_error("--threads " + std::to_string(threads) + ": expected at least 1");
  at::set_num_threads(threads);
}

}  // namespace olv2
