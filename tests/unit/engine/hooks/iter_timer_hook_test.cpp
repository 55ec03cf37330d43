// The step timer: ETA from the mean optimizer-step time, mmcv's log-buffer order and interval.
#include "olv2/engine/hooks/iter_timer_hook.h"

#include <gtest/gtest.h>

#include "olv2/engine/train_context.h"

namespace olv2 {
namespace {

using Clock = std::chrono::steady_clock;

void finish_step(IterTimerHook& timer, TrainContext& context, double seconds) {
  timer.before_step(context);
  context.step.start = Clock::now() - std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  context.step.data_time = 0.25;
  context.step.terms = {{"lc_loss_cls", 1.0}};
  context.step.loss = 1.5;
  context.step.outcome.grad_norm = 3.0;
  ++context.iteration;
  timer.after_step(context);
  ++context.step.in_epoch;
}

TEST(IterTimerHook, TheEtaIsTheMeanStepTimeTimesTheStepsLeft) {
  TrainContext context;
  context.max_epochs = 2;
  context.steps_per_epoch = 5;
  IterTimerHook timer(10);
  timer.before_epoch(context);
  finish_step(timer, context, 2.0);
  EXPECT_NEAR(context.eta_seconds, 2.0 * 9, 0.5);
  // Time spent between steps (a validation, a checkpoint write) is not a step's.
  finish_step(timer, context, 4.0);
  EXPECT_NEAR(context.eta_seconds, 3.0 * 8, 0.5);
}

TEST(IterTimerHook, AveragesEveryIntervalInMmcvsKeyOrder) {
  TrainContext context;
  context.max_epochs = 1;
  context.steps_per_epoch = 4;
  IterTimerHook timer(2);
  timer.before_epoch(context);
  finish_step(timer, context, 0.0);
  EXPECT_FALSE(context.log_due);
  finish_step(timer, context, 0.0);
  ASSERT_TRUE(context.log_due);
  std::vector<std::string> keys;
  for (const auto& [key, value] : context.log_buffer.output()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"data_time", "lc_loss_cls", "loss", "grad_norm", "time"}));
  EXPECT_DOUBLE_EQ(context.log_buffer.output("loss"), 1.5);
  timer.before_step(context);
  EXPECT_FALSE(context.log_due);
}

}  // namespace
}  // namespace olv2
