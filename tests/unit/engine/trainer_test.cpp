// The training loop: the order of hook points, accumulation, and where a mid-epoch resume
// starts, on a one-parameter model over fake samples.
#include "olv2/engine/trainer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "olv2/data/sampler.h"
#include "olv2/engine/hooks/lr_schedule_hook.h"
#include "olv2/engine/hooks/optimizer_hook.h"
#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/param_groups.h"

namespace olv2 {
namespace {

// loss = (w · mean(images) − 1)²
struct ScalarOutputs : ForwardOutputs {
  torch::Tensor fit;  // w · mean(images)
};

class ScalarDetectorImpl : public DetectorImpl {
 public:
  ScalarDetectorImpl() { weight = register_parameter("weight", torch::zeros({1})); }
  std::shared_ptr<ForwardOutputs> forward_outputs(const Batch& batch) override {
    auto outputs = std::make_shared<ScalarOutputs>();
    outputs->fit = weight * batch.images.mean();
    return outputs;
  }
  DetectorLosses losses_of(const ForwardOutputs& outputs, const Batch& /*batch*/) override {
    DetectorLosses losses;
    losses.losses.emplace_back("loss_fit",
                               (outputs_as<ScalarOutputs>(outputs).fit - 1.0).pow(2).sum());
    return losses;
  }
  std::vector<FrameTestOutputs> decode_outputs(const ForwardOutputs& /*outputs*/,
                                               const Batch& /*batch*/,
                                               bool /*rescale*/) const override {
    return {};
  }
  std::vector<FramePrediction> predictions_of(
      const Batch& /*batch*/, const std::vector<FrameTestOutputs>& /*decoded*/) const override {
    return {};
  }
  void set_dropout(double /*p*/) override {}
  torch::Tensor weight;
};

Sample fake_sample(int64_t index) {
  Sample sample;
  sample.index = index;
  sample.img = torch::full({1, 3, 2, 2}, 1.0f);
  sample.lidar2img = torch::eye(4, torch::kFloat64).unsqueeze(0);
  sample.can_bus = torch::zeros({18}, torch::kFloat64);
  return sample;
}

// Records every hook point with the step it saw.
class RecordingHook : public Hook {
 public:
  explicit RecordingHook(std::vector<std::string>& events) : events_(events) {}
  void before_run(TrainContext&) override { events_.push_back("before_run"); }
  void before_epoch(TrainContext& c) override {
    events_.push_back("before_epoch " + std::to_string(c.epoch));
  }
  void before_step(TrainContext& c) override {
    events_.push_back("before_step " + std::to_string(c.step.in_epoch) + " of " +
                      std::to_string(c.step.micro_batches));
  }
  void after_backward(TrainContext& c) override {
    events_.push_back("after_backward idx " + std::to_string(c.step.last_idx));
  }
  void after_step(TrainContext& c) override {
    events_.push_back("after_step iter " + std::to_string(c.iteration));
  }
  void after_epoch(TrainContext& c) override {
    events_.push_back("after_epoch " + std::to_string(c.epoch));
  }
  void after_run(TrainContext&) override { events_.push_back("after_run"); }

 private:
  std::vector<std::string>& events_;
};

class ConstantLr : public LrScheduler {
 public:
  const std::vector<double>& lrs() const override { return lrs_; }
  LrSchedulerState state() const override { return {}; }
  void load_state(const LrSchedulerState&) override {}
  std::string name() const override { return "constant"; }
  std::string describe() const override { return "constant"; }

 private:
  std::vector<double> lrs_{0.1};
};

struct Fixture {
  explicit Fixture(int64_t samples, int64_t accumulation) {
    model = std::make_shared<ScalarDetectorImpl>();
    ParamGroup group;
    group.names = {"weight"};
    group.params = {model->weight};
    group.lr = 0.1;
    optimizer = std::make_unique<ReplicatedOptimizer>(
        TrainableParams{{"weight"}, {model->weight}}, std::make_shared<AdamOptions>(),
        std::vector<ParamGroup>{group}, std::make_unique<SingleProcessGradientSync>(), nullptr);
    context.model = model.get();
    context.optimizer = optimizer.get();
    context.scheduler = &schedule;
    context.identity.samples_per_gpu = 1;
    context.identity.accumulation_steps = accumulation;
    SamplerOptions sampler;
    sampler.dataset_size = samples;
    DataLoaderOptions options;
    options.samples_per_gpu = 1;
    options.workers_per_gpu = 0;
    loader = std::make_unique<DataLoader>(
        [this](int64_t index, int64_t, const at::Tensor&) -> std::optional<Sample> {
          loaded.insert(index);
          return fake_sample(index);
        },
        std::make_shared<DistributedSampler>(sampler, false), options);
    context.micro_batches_per_epoch = loader->batches_per_epoch();
    context.steps_per_epoch = (context.micro_batches_per_epoch + accumulation - 1) / accumulation;
  }

  void run(int64_t epochs, std::vector<std::string>& events, HookList hooks = {}) {
    context.max_epochs = epochs;
    hooks.add("LrUpdaterHook", HookPriority::kVeryHigh, std::make_unique<LrScheduleHook>());
    hooks.add("OptimizerHook", HookPriority::kAboveNormal,
              std::make_unique<OptimizerHook>(std::nullopt));
    hooks.add("RecordingHook", HookPriority::kNormal, std::make_unique<RecordingHook>(events));
    Trainer(context, *loader, TrainStepOptions{}, std::move(hooks)).run();
  }

  std::shared_ptr<ScalarDetectorImpl> model;
  std::unique_ptr<TrainingOptimizer> optimizer;
  ConstantLr schedule;
  TrainContext context;
  std::unique_ptr<DataLoader> loader;
  std::set<int64_t> loaded;
};

TEST(Trainer, CallsTheHookPointsInOrderWithAShortLastStep) {
  Fixture fixture(5, 2);
  std::vector<std::string> events;
  fixture.run(1, events);
  const std::vector<std::string> expected = {
      "before_run",         "before_epoch 0",       "before_step 0 of 2",   "after_backward idx 1",
      "after_step iter 1",  "before_step 1 of 2",   "after_backward idx 3", "after_step iter 2",
      "before_step 2 of 1", "after_backward idx 4", "after_step iter 3",    "after_epoch 0",
      "after_run"};
  EXPECT_EQ(events, expected);
  EXPECT_EQ(fixture.context.iteration, 3);
}

TEST(Trainer, TheOptimizerHookTrainsTheModel) {
  Fixture fixture(4, 1);
  std::vector<std::string> events;
  const double before = fixture.model->weight.item<double>();
  fixture.run(3, events);
  EXPECT_EQ(fixture.context.iteration, 12);
  EXPECT_GT(fixture.model->weight.item<double>(), before + 0.5);
}

TEST(Trainer, AMidEpochResumeStartsAtItsPositionWithoutLoadingEarlierBatches) {
  Fixture fixture(6, 2);
  fixture.context.start_epoch = 0;
  fixture.context.iteration = 1;
  fixture.context.epoch_batches = 2;
  fixture.context.epoch_position = 2;
  std::vector<std::string> events;
  fixture.run(2, events);
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events[2], "before_step 1 of 2");
  EXPECT_EQ(events[3], "after_backward idx 3");
  EXPECT_EQ(fixture.context.iteration, 1 + 2 + 3);
  // Epoch 0 loaded only positions 2..5; epoch 1 loads all six.
  EXPECT_EQ(fixture.loaded, (std::set<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Trainer, AResumedEpochDoesNotDecodeTheTrainedBatches) {
  Fixture fixture(6, 1);
  fixture.context.epoch_batches = 4;
  fixture.context.epoch_position = 4;
  fixture.context.iteration = 4;
  std::vector<std::string> events;
  fixture.run(1, events);
  EXPECT_EQ(fixture.loaded, (std::set<int64_t>{4, 5}));
  EXPECT_EQ(fixture.context.iteration, 6);
}

// Marks one hook point with its name; the one named "stopper" ends the run after epoch 0.
class NamedHook : public Hook {
 public:
  NamedHook(std::string name, std::vector<std::string>& events)
      : name_(std::move(name)), events_(events) {}
  void after_epoch(TrainContext& context) override {
    events_.push_back(name_);
    if (name_ == "stopper") context.stop_training = true;
  }

 private:
  std::string name_;
  std::vector<std::string>& events_;
};

TEST(Trainer, HooksRunByPriorityThenInTheOrderTheyWereAdded) {
  Fixture fixture(2, 1);
  std::vector<std::string> events;
  HookList hooks;
  hooks.add("late", HookPriority::kVeryLow, std::make_unique<NamedHook>("late", events));
  hooks.add("normal 1", HookPriority::kNormal, std::make_unique<NamedHook>("normal 1", events));
  hooks.add("early", 5, std::make_unique<NamedHook>("early", events));
  hooks.add("normal 2", HookPriority::kNormal, std::make_unique<NamedHook>("normal 2", events));
  fixture.run(1, events, std::move(hooks));
  // The fixture's recording hook (NORMAL) was added after the two NORMAL ones.
  const std::vector<std::string> after_epoch = {"early", "normal 1", "normal 2", "after_epoch 0",
                                                "late"};
  ASSERT_GE(events.size(), after_epoch.size() + 1);
  EXPECT_EQ(std::vector<std::string>(events.end() - 6, events.end() - 1), after_epoch);
}

TEST(Trainer, AHookThatSetsStopTrainingEndsTheRunAfterThatEpoch) {
  Fixture fixture(2, 1);
  std::vector<std::string> events;
  HookList hooks;
  hooks.add("stopper", HookPriority::kNormal, std::make_unique<NamedHook>("stopper", events));
  fixture.run(3, events, std::move(hooks));
  EXPECT_EQ(fixture.context.iteration, 2);
  EXPECT_EQ(events.back(), "after_run");
}

}  // namespace
}  // namespace olv2
