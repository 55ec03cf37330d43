#pragma once
// Independent work items spread over plain threads (no LibTorch), as evaluation spreads frames.
#include <cstddef>
#include <functional>

namespace olv2 {

// Calls body(i) for every i in [0, count), on up to `max_workers` threads (at most the hardware's
// and at least one), worker w taking i = w, w + workers, ... Waits for all; then rethrows the
// first error, in worker order.
void parallel_for(std::size_t count, std::size_t max_workers,
                  const std::function<void(std::size_t)>& body);

}  // namespace olv2
