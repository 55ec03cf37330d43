#include "olv2/util/allocator_tuning.h"

#include <cstdlib>  // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace olv2 {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  // glibc accepts at most half its 64 MB heap size as a fixed mmap threshold.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace olv2
