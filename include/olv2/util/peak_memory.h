#pragma once
// The peak memory the logs report, on a CUDA device or on the CPU.
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <string>

namespace olv2 {

// The `memory` of mmcv's log lines, in MB: on a CUDA device its max_memory_allocated (the
// peak of tensor memory since the process started); on the CPU the peak resident set of this
// process.
int64_t peak_memory_mb(const c10::Device& device);

// On a CUDA device, the peak of the memory its caching allocator has reserved from the driver
// since the process started (torch.cuda.max_memory_reserved, in MB): what allocations plus the
// allocator's cache took, the part of nvidia-smi's figure that the process's tensors cause.
// None on the CPU.
std::optional<int64_t> peak_reserved_memory_mb(const c10::Device& device);

// What peak_memory_mb measures on `device`, for the environment block.
std::string peak_memory_description(const c10::Device& device);

}  // namespace olv2
