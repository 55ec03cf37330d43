#include "op_profile.h"

#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <map>

namespace olv2 {
namespace {

namespace profiler = torch::autograd::profiler;

struct OpenRange {
  const profiler::LegacyEvent* push;
  double children_us = 0.0;
};

// Push and pop ranges nest per thread; an operator's self time is its range less its children.
void add_self_times(const std::vector<profiler::LegacyEvent>& events,
                    std::map<std::string, OpTime>& totals) {
  std::vector<OpenRange> open;
  for (const profiler::LegacyEvent& event : events) {
    if (event.kind() == profiler::EventKind::PushRange) {
      open.push_back({&event});
    } else if (event.kind() == profiler::EventKind::PopRange && !open.empty()) {
      const OpenRange range = open.back();
      open.pop_back();
      const double elapsed_us = range.push->cpuElapsedUs(event);
      OpTime& total = totals[range.push->name()];
      total.name = range.push->name();
      total.self_s += (elapsed_us - range.children_us) * 1e-6;
      ++total.calls;
      if (!open.empty()) open.back().children_us += elapsed_us;
    }
  }
}

}  // namespace

OpProfile::OpProfile() {
  profiler::enableProfilerLegacy(
      torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
}

OpProfile::~OpProfile() {
  if (running_) profiler::disableProfilerLegacy();
}

std::vector<OpTime> OpProfile::stop() {
  running_ = false;
  std::map<std::string, OpTime> totals;
  for (const auto& thread_events : profiler::disableProfilerLegacy()) {
    add_self_times(thread_events, totals);
  }
  std::vector<OpTime> ops;
  for (auto& [name, time] : totals) ops.push_back(std::move(time));
  std::sort(ops.begin(), ops.end(),
            [](const OpTime& a, const OpTime& b) { return a.self_s > b.self_s; });
  return ops;
}

}  // namespace olv2
