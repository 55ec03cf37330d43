// Hooks as components: their states gathered into a checkpoint's `meta.hook_msgs` and given back
// on resume, and early stopping's rule and resumable state.
#include "olv2/engine/hooks/hook_list.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "olv2/engine/hooks/early_stopping_hook.h"
#include "olv2/engine/hooks/evaluation_hook.h"
#include "olv2/engine/train_context.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// Keeps one integer under `key`.
class CountingHook : public Hook {
 public:
  explicit CountingHook(std::string key, int64_t count = 0) : key_(std::move(key)), count_(count) {}
  std::optional<PthValue> state() const override {
    PthValue state = PthValue::dict();
    state.set(key_, PthValue::from_int(count_));
    return state;
  }
  void load_state(const PthValue& hook_msgs) override {
    if (const PthValue* count = hook_msgs.find(key_)) count_ = count->as_int();
  }
  int64_t count() const { return count_; }

 private:
  std::string key_;
  int64_t count_;
};

TEST(HookList, GathersEveryHooksStateAndGivesItBack) {
  HookList list;
  list.add("A", HookPriority::kNormal, std::make_unique<CountingHook>("a_count", 3));
  list.add("Stateless", HookPriority::kLow, std::make_unique<Hook>());
  list.add("B", HookPriority::kHigh, std::make_unique<CountingHook>("b_count", 7));
  const PthValue states = list.states();
  ASSERT_EQ(states.dict_items().size(), 2u);
  EXPECT_EQ(states.at("a_count").as_int(), 3);
  EXPECT_EQ(states.at("b_count").as_int(), 7);
  EXPECT_EQ(list.describe(), "B (30), A (50), Stateless (70)");

  auto fresh = std::make_unique<CountingHook>("a_count");
  const CountingHook& restored = *fresh;
  HookList resumed;
  resumed.add("A", HookPriority::kNormal, std::move(fresh));
  resumed.load_states(states);
  EXPECT_EQ(restored.count(), 3);
}

TEST(HookList, TwoHooksWritingOneEntryIsAnErrorNamingBoth) {
  HookList list;
  list.add("First", HookPriority::kNormal, std::make_unique<CountingHook>("count"));
  list.add("Second", HookPriority::kNormal, std::make_unique<CountingHook>("count"));
  try {
    list.states();
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("hooks First and Second"), std::string::npos)
        << error.what();
  }
}

TEST(EvaluationHookState, TheBestValidationRoundTripsThroughHookMsgs) {
  PthValue hook_msgs = PthValue::dict();
  EXPECT_FALSE(best_checkpoint_of(hook_msgs).has_value());
  hook_msgs.set("best_score", PthValue::from_float(0.25));
  hook_msgs.set("best_ckpt", PthValue::from_string("work/best_OLS_epoch_2.pth"));
  hook_msgs.set("best_metric", PthValue::from_string("OLS"));
  hook_msgs.set("best_epoch", PthValue::from_int(2));
  const std::optional<BestCheckpoint> best = best_checkpoint_of(hook_msgs);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->metric, "OLS");
  EXPECT_EQ(best->score, 0.25);
  EXPECT_EQ(best->epoch, 2);
  EXPECT_EQ(best->file, "work/best_OLS_epoch_2.pth");
  hook_msgs.set("best_epoch", PthValue::from_string("two"));
  EXPECT_THROW(best_checkpoint_of(hook_msgs), Error);
}

// After each "validation" of `scores`, whether the hook stopped the run.
std::vector<bool> stops_after(EarlyStoppingHook& hook, const std::vector<double>& scores) {
  std::vector<bool> stops;
  for (double score : scores) {
    TrainContext context;
    EvaluationMetrics metrics;
    metrics.score = score;
    context.validation = ValidationRecord{1, metrics};
    hook.after_epoch(context);
    stops.push_back(context.stop_training);
  }
  return stops;
}

TEST(EarlyStoppingHook, StopsAfterPatienceValidationsWithoutImprovement) {
  EarlyStoppingOptions options;
  options.patience = 2;
  options.min_delta = 0.05;
  EarlyStoppingHook hook(options);
  // 0.33 is not better than 0.30 by more than 0.05: a wait; 0.40 resets; then two waits stop.
  EXPECT_EQ(stops_after(hook, {0.30, 0.33, 0.40, 0.41, 0.39}),
            (std::vector<bool>{false, false, false, false, true}));
}

TEST(EarlyStoppingHook, ANonFiniteScoreOrTheThresholdStopsAtOnce) {
  EarlyStoppingOptions options;
  EarlyStoppingHook finite(options);
  EXPECT_EQ(stops_after(finite, {0.2, std::numeric_limits<double>::quiet_NaN()}),
            (std::vector<bool>{false, true}));
  options.stopping_threshold = 0.5;
  EarlyStoppingHook threshold(options);
  EXPECT_EQ(stops_after(threshold, {0.2, 0.6}), (std::vector<bool>{false, true}));
}

// A resumed hook counts on from the checkpoint's state: one more wait reaches the patience.
TEST(EarlyStoppingHook, AResumedHookCountsOnFromItsState) {
  EarlyStoppingOptions options;
  options.patience = 3;
  EarlyStoppingHook first(options);
  stops_after(first, {0.5, 0.4, 0.45});
  EarlyStoppingHook resumed(options);
  resumed.load_state(first.state().value());
  EXPECT_EQ(stops_after(resumed, {0.3}), (std::vector<bool>{true}));
  EarlyStoppingHook fresh(options);
  EXPECT_EQ(stops_after(fresh, {0.3}), (std::vector<bool>{false}));
}

}  // namespace
}  // namespace olv2
