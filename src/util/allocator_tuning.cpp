#include "olv2/util/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ on glibc
#include <mutex>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "olv2/util/large_block_allocator.h"
#include "olv2/util/platform.h"

namespace olv2 {

void install_memory_reusing_allocators() {
  install_large_block_allocator();
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string tunables = platform::environment_variable("GLIBC_TUNABLES").value_or("");
    if (tunables.find("glibc.malloc.") != std::string::npos) return;
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
#endif
}

}  // namespace olv2
