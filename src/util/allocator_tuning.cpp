#include "olv2/util/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ on glibc
#include <cstring>
#include <mutex>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "olv2/util/large_block_allocator.h"

namespace olv2 {

void keep_freed_memory_for_reuse() {
  install_large_block_allocator();
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr) return;
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
#endif
}

}  // namespace olv2
