#include "olv2/util/autocast_guard.h"

#include <ATen/autocast_mode.h>

#include "olv2/util/compat.h"

namespace olv2 {

AutocastState AutocastState::current(c10::DeviceType device) {
  return {compat::autocast_enabled(device), compat::autocast_dtype(device)};
}

AutocastGuard::AutocastGuard(c10::DeviceType device, AutocastState state)
    : device_(device), previous_(AutocastState::current(device)) {
  compat::set_autocast_enabled(device_, state.enabled);
  compat::set_autocast_dtype(device_, state.dtype);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::set_autocast_enabled(device_, previous_.enabled);
  compat::set_autocast_dtype(device_, previous_.dtype);
}

AutocastOff::AutocastOff()
    : cpu_(c10::kCPU, AutocastState{false}), cuda_(c10::kCUDA, AutocastState{false}) {}

}  // namespace olv2
