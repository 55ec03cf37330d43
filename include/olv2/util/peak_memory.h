#pragma once
#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace olv2 {

// The `memory` of mmcv's log lines, in MB: on a CUDA device its max_memory_allocated (the
// peak of tensor memory since the process started); on the CPU the peak resident set of this
// process.
int64_t peak_memory_mb(const c10::Device& device);

// What peak_memory_mb measures on `device`, for the environment block.
std::string peak_memory_description(const c10::Device& device);

}  // namespace olv2
