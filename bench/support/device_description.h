#pragma once
#include <c10/core/Device.h>

#include <string>

namespace olv2 {

// What a device is, for benchmark reports: its name (the CUDA device's, or the CPU's model name)
// and its memory (the card's, or the machine's physical memory); 0 when it cannot be told.
struct DeviceDescription {
  std::string name;
  double memory_gib = 0.0;
};

DeviceDescription describe_device(const c10::Device& device);

}  // namespace olv2
