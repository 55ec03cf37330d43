#include "olv2/engine/training_run.h"

#include <torch/optim/optimizer.h>
#include <torch/utils.h>

#include <unordered_map>
#include <utility>

#include "olv2/data/dataset_builder.h"
#include "olv2/data/sampler.h"
#include "olv2/engine/checkpoint/optimizer_state.h"
#include "olv2/engine/checkpoint/resume.h"
#include "olv2/engine/distributed/all_reduce_gradient_sync.h"
#include "olv2/engine/distributed/zero_optimizer.h"
#include "olv2/engine/hooks/hook_site.h"
#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/engine/precision/precision.h"
#include "olv2/engine/trainer.h"
#include "olv2/models/build.h"
#include "olv2/solver/optimizer.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

// Every rank starts from rank 0's parameters and buffers, as DDP does at construction.
void broadcast_module_state(torch::nn::Module& module, Collective& collective) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> state;
  for (const at::Tensor& parameter : module.parameters()) state.push_back(parameter);
  for (const at::Tensor& buffer : module.buffers()) state.push_back(buffer);
  collective.broadcast(state, 0);
}

// The optimizer's parameters in the model's registration order (the order DDP buckets them
// by, reversed), each with the index of its param group.
std::pair<std::vector<at::Tensor>, std::vector<int64_t>> registration_order(
    torch::nn::Module& module, const std::vector<ParamGroup>& groups) {
  std::unordered_map<const void*, int64_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const at::Tensor& param : groups[g].params)
      group_of.emplace(param.unsafeGetTensorImpl(), static_cast<int64_t>(g));
  }
  std::pair<std::vector<at::Tensor>, std::vector<int64_t>> ordered;
  for (const at::Tensor& param : module.parameters()) {
    const auto found = group_of.find(param.unsafeGetTensorImpl());
    if (found == group_of.end()) continue;
    ordered.first.push_back(param);
    ordered.second.push_back(found->second);
    group_of.erase(found);  // a shared tensor once
  }
  return ordered;
}

}  // namespace

TrainingRun::TrainingRun(RunSettings run, const TrainOptions& options, RunFiles files,
                         c10::Device device, Collective& collective)
    : engine_(std::move(run.engine)),
      settings_(std::move(run.training)),
      files_(std::move(files)),
      collective_(collective) {
  const int64_t world_size = collective.world_size();
  for (const std::string& ignored : run.deepspeed_ignored_keys)
    spdlog::info("DeepSpeed JSON key ignored: {}", ignored);
  for (const SettingSource& source : settings_.sources) spdlog::info("setting {}", source.line());

  resume_path_ = resume_checkpoint_path(engine_.resume_from, files_.work_dir);
  if (!resume_path_.empty()) resumed_ = read_training_checkpoint(resume_path_);
  RunIdentity& identity = context_.identity;
  identity.seed = run_seed(options.seed, resumed_ ? &*resumed_ : nullptr, resume_path_);
  identity.world_size = world_size;
  identity.samples_per_gpu = settings_.samples_per_gpu;
  identity.accumulation_steps = settings_.accumulation_steps;
  if (resumed_) check_same_trajectory(identity, *resumed_, resume_path_);
  spdlog::info("seed {}{}", identity.seed,
               options.seed || !resumed_ ? "" : " (the resumed checkpoint's)");

  context_.device = device;
  if (collective.backend() != "none") context_.collective = &collective;
  context_.config_text = std::move(run.config_text);
  context_.max_epochs = engine_.max_epochs;
  // The initial weights derive from the seed, like everything else random in a run.
  torch::manual_seed(identity.seed);
  if (run.picture_bev_range) {
    figures_.range = bev_area(*run.picture_bev_range, "model of `evaluation.visualize`");
  }
  build_model(*run.model, run.model_type);
  build_data(run.train, run.val);
  build_solver();
  if (resumed_) {
    restore();
  } else if (!engine_.load_from.empty()) {
    load_weights(engine_.load_from);
  }
  if (world_size > 1) broadcast_module_state(*model_, collective);
}

TrainingRun::~TrainingRun() = default;

void TrainingRun::build_model(const DetectorOptions& options, const std::string& type) {
  model_ = build_detector(options);
  model_->to(context_.device);
  context_.model = model_.get();
  spdlog::info("model {} on {}", type, context_.device.str());
}

void TrainingRun::build_data(const DatasetSpec& train, const std::optional<DatasetSpec>& val) {
  const uint64_t seed = context_.identity.seed;
  train_set_ = build_dataset(train, seed);
  if (val) val_set_ = build_dataset(*val, seed);
  SamplerOptions sampler;
  sampler.dataset_size = static_cast<int64_t>(train_set_->size());
  sampler.seed = seed;
  sampler.rank = collective_.rank();
  sampler.world_size = collective_.world_size();
  DataLoaderOptions loader;
  loader.samples_per_gpu = settings_.samples_per_gpu;
  loader.workers_per_gpu = engine_.workers_per_gpu;
  if (context_.device.is_cuda()) loader.pin_for = context_.device;
  loader_ = std::make_unique<DataLoader>(
      *train_set_, std::make_shared<DistributedGroupSampler>(sampler, settings_.samples_per_gpu),
      loader);
  context_.micro_batches_per_epoch = loader_->batches_per_epoch();
  const int64_t accumulation = settings_.accumulation_steps;
  context_.steps_per_epoch = (context_.micro_batches_per_epoch + accumulation - 1) / accumulation;
  spdlog::info(
      "train: {} frames, {} micro-batches of {} per epoch and rank, {} optimizer steps "
      "(accumulation {}, {} ranks)",
      train_set_->size(), context_.micro_batches_per_epoch, settings_.samples_per_gpu,
      context_.steps_per_epoch, accumulation, collective_.world_size());
}

void TrainingRun::build_solver() {
  groups_ = build_param_groups(model_->named_parameters(), settings_.solver.param_group_rules());
  for (const ParamGroup& group : groups_) {
    spdlog::info("param group `{}`: {} tensors, lr {}, weight_decay {}",
                 group.custom_key.empty() ? "default" : group.custom_key, group.params.size(),
                 group.lr, group.weight_decay);
  }
  Precision precision = resolve_precision(settings_.precision, context_.device);
  autocast_ = precision.autocast;
  build_optimizer(std::move(precision.scaler));
  scheduler_ = build_lr_scheduler(settings_, groups_, engine_.max_epochs, context_.steps_per_epoch);
  spdlog::info("lr schedule: {}", scheduler_->describe());
  if (!precision.description.empty()) spdlog::info("{}", precision.description);
  for (const std::string& note : settings_.notes) spdlog::info("{}", note);
  context_.scheduler = scheduler_.get();
}

void TrainingRun::build_optimizer(std::unique_ptr<LossScaler> scaler) {
  TrainableParams trainable;
  for (const ParamGroup& group : groups_) {
    trainable.names.insert(trainable.names.end(), group.names.begin(), group.names.end());
    trainable.tensors.insert(trainable.tensors.end(), group.params.begin(), group.params.end());
  }
  const DistributedOptions& dist = engine_.dist;
  if (context_.collective == nullptr) {
    optimizer_ = std::make_unique<ReplicatedOptimizer>(
        std::move(trainable), settings_.solver.optimizer, groups_,
        std::make_unique<SingleProcessGradientSync>(), std::move(scaler));
  } else if (settings_.zero_stage >= 1 && collective_.world_size() > 1) {
    auto [params, group_of] = registration_order(*model_, groups_);
    optimizer_ = std::make_unique<ZeroOptimizer>(
        std::move(trainable), std::move(scaler), settings_.zero_stage, collective_,
        std::move(params), std::move(group_of), groups_, settings_.solver.optimizer,
        dist.bucket_cap_mb, dist.overlap_comm);
  } else {
    auto [params, group_of] = registration_order(*model_, groups_);
    optimizer_ = std::make_unique<ReplicatedOptimizer>(
        std::move(trainable), settings_.solver.optimizer, groups_,
        std::make_unique<AllReduceGradientSync>(collective_, std::move(params), dist.bucket_cap_mb,
                                                dist.overlap_comm),
        std::move(scaler), collective_.rank());
  }
  context_.optimizer = optimizer_.get();
  spdlog::info("gradient sync: {}", optimizer_->describe());
}

void TrainingRun::restore() {
  const TrainingCheckpoint& checkpoint = *resumed_;
  load_state_dict(*model_, checkpoint.state_dict);
  optimizer_->load_state(checkpoint.optimizer);
  scheduler_->load_state(checkpoint.scheduler);
  LossScaler* scaler = optimizer_->loss_scaler();
  if (scaler != nullptr && checkpoint.loss_scaler) {
    try {
      scaler->load_state(*checkpoint.loss_scaler);
    } catch (const Error& error) {
      throw input_error("cannot resume " + resume_path_.string() + ": " + error.what());
    }
  }
  context_.start_epoch = checkpoint.progress.epoch;
  context_.iteration = checkpoint.progress.iteration;
  context_.epoch_batches = checkpoint.progress.epoch_batches;
  context_.epoch_position = checkpoint.progress.epoch_position;
  spdlog::info("resumed from {}: epoch {}, iter {}", resume_path_.string(), context_.start_epoch,
               context_.iteration);
}

void TrainingRun::load_weights(const std::string& path) {
  LoadStateDictOptions load_options;
  load_options.strict = false;
  const LoadStateDictReport report =
      load_state_dict(*model_, read_checkpoint_weights(path), load_options);
  spdlog::info("loaded weights from {} ({} missing, {} unexpected keys)", path,
               report.missing_keys.size(), report.unexpected_keys.size());
  for (const std::string& key : report.missing_keys)
    spdlog::warn("missing key in {}: {}", path, key);
  for (const std::string& key : report.unexpected_keys)
    spdlog::warn("unexpected key in {}: {}", path, key);
}

HookList TrainingRun::build_hooks() const {
  HookSite site;
  site.rank = collective_.rank();
  site.work_dir = files_.work_dir;
  site.timestamp = files_.timestamp;
  site.grad_clip = settings_.solver.grad_clip;
  site.val_set = val_set_.get();
  site.workers_per_gpu = engine_.workers_per_gpu;
  site.figures = figures_;
  HookList hooks;
  for (const ConfiguredHook& configured : engine_.hooks) {
    if (std::unique_ptr<Hook> hook = configured.options->build(site)) {
      hooks.add(configured.type, configured.options->priority, std::move(hook));
    }
  }
  spdlog::info("hooks: {}", hooks.describe());
  if (resumed_) {
    try {
      hooks.load_states(resumed_->hook_msgs);
    } catch (const Error& error) {
      throw input_error("cannot resume " + resume_path_.string() + ": " + error.what());
    }
  }
  return hooks;
}

void TrainingRun::run(std::vector<std::unique_ptr<Hook>> observers) {
  TrainStepOptions step;
  step.seed = context_.identity.seed;
  step.autocast = autocast_;
  HookList hooks = build_hooks();
  for (auto& observer : observers) {
    hooks.add("observer", HookPriority::kLowest, std::move(observer));
  }
  Trainer(context_, *loader_, step, std::move(hooks)).run();
}

}  // namespace olv2
