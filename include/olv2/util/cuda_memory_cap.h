#pragma once
// A cap on the GPU memory one process may allocate, to prove that a run fits on a smaller card.
#include <c10/core/Device.h>

#include <string>

namespace olv2 {

// Limits the CUDA caching allocator of `device` to `gib` GiB (the per-process memory fraction
// `gib` / the card's total, torch.cuda.set_per_process_memory_fraction): an allocation past the
// cap fails with CUDA's out-of-memory error as it would on a card of that size, less the CUDA
// context, which the cap does not count. A cap at or above the card's size lifts any earlier
// one. Returns what was done, for the log: the fraction and the card's total, or why the cap
// does not apply (the CPU, or a card no larger than the cap). A cap of zero or below is an
// input error.
std::string apply_cuda_memory_cap(const c10::Device& device, double gib);

}  // namespace olv2
