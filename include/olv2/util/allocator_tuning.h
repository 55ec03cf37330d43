#pragma once

namespace olv2 {

// Makes the C allocator keep the memory a training step frees for the next step's allocations.
// With glibc's defaults, blocks over its dynamic mmap threshold are unmapped when freed and
// freed memory at the top of the heap is trimmed, so each step page-faults (and the kernel
// zeroes) the same hundreds of megabytes again: 0.2 CPU s per step of the fixture model. Here
// blocks under 32 MB come from the heap and the heap is trimmed only beyond 1 GiB free. Peak
// memory is unchanged (it is the high-water mark either way). A no-op where the C library is not
// glibc.
void keep_freed_memory_for_reuse();

}  // namespace olv2
