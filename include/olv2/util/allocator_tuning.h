#pragma once

namespace olv2 {

// Makes the C allocator keep the memory the process frees for its next allocations. With
// glibc's defaults, blocks over its dynamic mmap threshold are unmapped when freed and freed
// memory at the top of the heap is trimmed, so every sample and every training step page-faults
// (and the kernel zeroes) the same hundreds of megabytes again: measured, a full-size train
// sample's pipeline 0.59 s instead of 0.29 s, and 0.2 CPU s per step of the fixture model. Here
// every block comes from the heap and the heap is trimmed only beyond 1 GiB free. The price is
// fragmentation: at full resolution a training step's peak is 13.5-18 GB instead of 7.5 GB
// (BENCHMARKS.md). A user's own GLIBC_TUNABLES malloc settings take precedence: this does
// nothing when that variable sets any glibc.malloc tunable (e.g.
// GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432 for the smaller peak). Idempotent; a no-op
// where the C library is not glibc.
void keep_freed_memory_for_reuse();

}  // namespace olv2
