#include "olv2/util/fault_injection.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace {

struct FaultPlan {
  std::string point;  // empty: no fault planned
  long long hit = 0;
};

FaultPlan read_plan() {
  const std::string text = platform::environment_variable("OLV2_FAULT").value_or("");
  if (text.empty()) return {};
  const size_t colon = text.find(':');
  FaultPlan plan;
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    plan.point = text.substr(0, colon);
    size_t used = 0;
    plan.hit = std::stoll(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1 || plan.hit < 1 || plan.point.empty()) {
      throw std::invalid_argument("bad count");
    }
  } catch (const std::exception&) {
    throw input_error("OLV2_FAULT=" + text + ": expected <point>:<n>, n >= 1 (points: step, " +
                      "checkpoint_write, validation)");
  }
  return plan;
}

const FaultPlan& plan() {
  static const FaultPlan planned = read_plan();
  return planned;
}

std::atomic<long long> hits{0};

}  // namespace

void fault_point(const char* name) {
  const FaultPlan& planned = plan();
  if (planned.point.empty() || planned.point != name) return;
  if (hits.fetch_add(1) + 1 == planned.hit) platform::kill_self();
}

}  // namespace olv2
