#pragma once
// Autocast set for a scope and restored after it, as `torch.autocast` does.
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace olv2 {

// The autocast settings of one device type: whether it is on and its
// lower-precision dtype.
struct AutocastState {
  bool enabled = false;
  c10::ScalarType dtype = c10::ScalarType::BFloat16;

  static AutocastState current(c10::DeviceType device);
};

// Sets the autocast state of `device` for a scope and restores the previous one
// on exit, like `torch.autocast`: it counts a nesting level, and the cache of
// casted weights is cleared when the outermost autocast scope ends (a stale
// cache would keep pre-update weights alive).
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, AutocastState state);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  AutocastState previous_;
};

// Autocast off on the CPU and on CUDA for a scope, where the original computes in float32
// whatever autocast does around it (its `force_fp32`, its float32 kernels).
class AutocastOff {
 public:
  AutocastOff();

 private:
  AutocastGuard cpu_;
  AutocastGuard cuda_;
};

}  // namespace olv2
