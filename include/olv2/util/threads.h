#pragma once
// LibTorch's intra-op thread count: the cores available and the default share of each rank.
#include <cstdint>

namespace olv2 {

// Cores this process may run on (its CPU affinity), at least 1.
int available_cores();

// The intra-op thread count when none is given: max(1, available cores / the ranks on this
// node, as the launch says), so that ranks × threads never exceeds the cores (oversubscribed
// OpenMP is many times slower).
int default_thread_count(int64_t local_world_size);

// Sets LibTorch's intra-op threads. LibTorch would otherwise pick 1 on some machines.
void set_thread_count(int threads);

}  // namespace olv2
