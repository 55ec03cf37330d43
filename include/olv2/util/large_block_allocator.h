#pragma once
// The process-wide large-block cache behind CPU tensors and OpenCV images of 1 MiB or more.
#include <cstddef>

#include "olv2/util/block_cache.h"

namespace olv2 {

// Blocks from this size on come from the large-block cache. A larger threshold leaves the many
// 1-4 MiB blocks of a full-resolution step to fragment glibc's heap as the larger ones would
// (BENCHMARKS.md, the large-block cache).
constexpr size_t kLargeBlockBytes = size_t{1} << 20;

// Makes CPU tensors and OpenCV images of kLargeBlockBytes or more come from one process-wide
// BlockCache (smaller ones from LibTorch's and OpenCV's own allocators): a training step or a
// sample's pipeline then reuses the memory the previous one freed instead of page-faulting
// fresh pages, and the largest blocks never fragment the C heap. Idempotent. Does nothing when
// OLV2_LARGE_BLOCK_CACHE=0.
void install_large_block_allocator();

bool large_block_allocator_installed();

// The shared cache's counters (all zero before installation).
BlockCache::Stats large_block_stats();

}  // namespace olv2
