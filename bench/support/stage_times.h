#pragma once
// The wall seconds of a model's named stages on the calling thread, summed per stage while an
// instance lives: the profiler scopes the detectors open around their image stages
// (`olv2::stage::backbone`, `olv2::stage::neck`, `olv2::stage::view_transformer`), so that a
// benchmark can split a step as the original's does.
#include <ATen/record_function.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>

namespace olv2::bench {

class StageTimes {
 public:
  StageTimes() {
    seconds().clear();
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&StageTimes::on_start, &StageTimes::on_end));
  }
  ~StageTimes() { at::removeCallback(handle_); }
  StageTimes(const StageTimes&) = delete;
  StageTimes& operator=(const StageTimes&) = delete;

  // Seconds per stage ("backbone", "neck", ...); the caller may clear it between steps.
  static std::map<std::string, double>& seconds() {
    thread_local std::map<std::string, double> times;
    return times;
  }

 private:
  static constexpr char kPrefix[] = "olv2::stage::";

  struct Start : at::ObserverContext {
    std::string stage;
    std::chrono::steady_clock::time_point time;
  };

  static std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
    const char* name = fn.name();
    if (std::strncmp(name, kPrefix, sizeof kPrefix - 1) != 0) return nullptr;
    auto start = std::make_unique<Start>();
    start->stage = name + sizeof kPrefix - 1;
    start->time = std::chrono::steady_clock::now();
    return start;
  }

  static void on_end(const at::RecordFunction& /*fn*/, at::ObserverContext* context) {
    if (context == nullptr) return;
    const auto* start = static_cast<const Start*>(context);
    seconds()[start->stage] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start->time).count();
  }

  at::CallbackHandle handle_;
};

}  // namespace olv2::bench
