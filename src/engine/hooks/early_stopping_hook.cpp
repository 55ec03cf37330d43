#include "olv2/engine/hooks/early_stopping_hook.h"

#include <cmath>
#include <utility>

#include "olv2/engine/logging/python_format.h"
#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/train_context.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

Schema EarlyStoppingOptions::schema() {
  Schema schema = hook_schema("EarlyStoppingHook");
  schema.optional("monitor", Schema::string().choices(metric_names()))
      .optional("rule", Schema::string().choices({"greater", "less"}))
      .optional("min_delta", Schema::number().range(0.0, 1e30))
      .optional("patience", Schema::integer().range(1, 1e9))
      .optional("check_finite", Schema::boolean())
      .optional("stopping_threshold", Schema::number().nullable());
  return schema;
}

EarlyStoppingOptions EarlyStoppingOptions::from_config(const ConfigNode& section) {
  EarlyStoppingOptions options;
  options.priority = read_hook_priority(section, HookPriority::kAboveNormal);
  options.monitor = section.get<std::string>("monitor", options.monitor);
  options.greater_is_better = section.get<std::string>("rule", "greater") == "greater";
  options.min_delta = section.get<double>("min_delta", options.min_delta);
  options.patience = section.get<int64_t>("patience", options.patience);
  options.check_finite = section.get<bool>("check_finite", options.check_finite);
  if (const ConfigNode* threshold = section.find("stopping_threshold");
      threshold != nullptr && !threshold->is_null()) {
    options.stopping_threshold = threshold->as_double();
  }
  return options;
}

std::unique_ptr<Hook> EarlyStoppingOptions::build(const HookSite& /*site*/) const {
  return std::make_unique<EarlyStoppingHook>(*this);
}

EarlyStoppingHook::EarlyStoppingHook(EarlyStoppingOptions options)
    : options_(std::move(options)),
      best_(options_.greater_is_better ? -std::numeric_limits<double>::infinity()
                                       : std::numeric_limits<double>::infinity()) {}

void EarlyStoppingHook::after_epoch(TrainContext& context) {
  std::string reason;
  if (context.validation) {
    reason = check(
        headline_metric(context.validation->metrics, options_.monitor, "early_stopping.monitor"));
  }
  bool stop = !reason.empty();
  if (context.collective != nullptr) stop = rank_zero_decision(*context.collective, stop);
  if (!reason.empty()) spdlog::info("early stopping after epoch {}: {}", context.epoch + 1, reason);
  if (stop) context.stop_training = true;
}

std::string EarlyStoppingHook::check(double score) {
  const std::string& metric = options_.monitor;
  const auto better = [&](double a, double b) {
    return options_.greater_is_better ? a > b : a < b;
  };
  if (options_.check_finite && !std::isfinite(score)) {
    return metric + " is " + python_float_repr(score) + "; the best was " +
           python_float_repr(best_);
  }
  if (options_.stopping_threshold && better(score, *options_.stopping_threshold)) {
    best_ = score;
    return metric + " " + python_float_repr(score) + " passed stopping_threshold " +
           python_float_repr(*options_.stopping_threshold);
  }
  const double delta = options_.greater_is_better ? options_.min_delta : -options_.min_delta;
  if (better(best_ + delta, score)) {
    if (++wait_ >= options_.patience) {
      return metric + " did not improve on " + python_float_repr(best_) + " in the last " +
             std::to_string(wait_) + " validations";
    }
    return {};
  }
  best_ = score;
  wait_ = 0;
  return {};
}

std::optional<PthValue> EarlyStoppingHook::state() const {
  PthValue hook_msgs = PthValue::dict();
  hook_msgs.set("early_stopping_best_score", PthValue::from_float(best_));
  hook_msgs.set("early_stopping_wait_count", PthValue::from_int(wait_));
  return hook_msgs;
}

void EarlyStoppingHook::load_state(const PthValue& hook_msgs) {
  const PthValue* best = hook_msgs.find("early_stopping_best_score");
  const PthValue* wait = hook_msgs.find("early_stopping_wait_count");
  if (best == nullptr || wait == nullptr) return;  // a checkpoint of a run without the hook
  try {
    best_ = best->as_float();
    wait_ = wait->as_int();
  } catch (const Error& error) {
    throw input_error(std::string("meta.hook_msgs: early stopping: ") + error.what());
  }
}

}  // namespace olv2
