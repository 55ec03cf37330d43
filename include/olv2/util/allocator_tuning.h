#pragma once
// Process-wide allocator settings that keep freed memory for the next sample and training step.

namespace olv2 {

// Makes the process keep the memory it frees for its next allocations. With the C library's
// defaults, large blocks are unmapped when freed and the top of the heap is trimmed, so every
// sample and every training step page-faults (and the kernel zeroes) the same hundreds of
// megabytes again (BENCHMARKS.md). Blocks of 1 MiB or more come from the large-block
// cache (install_large_block_allocator); on glibc the heap serves the rest without mmap and is
// trimmed only beyond 1 GiB free, unless the user's GLIBC_TUNABLES sets any glibc.malloc
// tunable (then glibc is left as the user set it). Serving the large blocks from the heap too
// fragments it, and a full-resolution step's peak grows by half or more. Process-wide: a program's
// `main` calls it before it allocates (domain objects never do). Idempotent.
void install_memory_reusing_allocators();

}  // namespace olv2
