#include "olv2/engine/trainer.h"

#include <sys/resource.h>
#include <torch/cuda.h>
#include <torch/optim/optimizer.h>
#include <torch/utils.h>

#include <cmath>
#include <filesystem>

#include "olv2/config/config_json.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/dataset_builder.h"
#include "olv2/data/sampler.h"
#include "olv2/engine/deepspeed_config.h"
#include "olv2/engine/optimizer_state.h"
#include "olv2/engine/optimizer_step.h"
#include "olv2/engine/python_format.h"
#include "olv2/engine/tensorboard_writer.h"
#include "olv2/engine/validator.h"
#include "olv2/models/build.h"
#include "olv2/solver/optimizer.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Sums of one optimizer step's micro-batches.
struct Trainer::StepLog {
  std::vector<std::pair<std::string, double>> terms;  // each loss term / micro-batches in step
  double loss = 0.0;
  double data_time = 0.0;
  Clock::time_point start = Clock::now();
};

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Peak resident memory of this process in MB (mmcv logs CUDA memory; on the CPU this is the
// figure that matters).
int64_t peak_memory_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss / 1024);
}

// Model randomness (dropout) of step `step` derives from (seed, step), so a resumed run draws
// exactly what the uninterrupted run drew.
uint64_t step_seed(uint64_t seed, int64_t step) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(step) + 0x632BE59BD9B4E019ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::optional<DeepSpeedConfig> deepspeed_config_of(const ConfigNode& config,
                                                   const TrainOptions& options) {
  if (!options.use_ds) return std::nullopt;
  if (!options.deepspeed_config.empty()) return read_deepspeed_config(options.deepspeed_config);
  const ConfigNode* ds = config.find("ds");
  if (ds == nullptr || ds->is_null()) {
    throw input_error(
        "--use-ds needs a DeepSpeed JSON: --deepspeed-config FILE or the config's `ds`");
  }
  if (ds->is_scalar()) return read_deepspeed_config(ds->as_string());
  return parse_deepspeed_config(config_to_json(*ds).dump(), ds->where());
}

bool has_hook(const ConfigNode& config, const std::string& type) {
  const ConfigNode* log_config = config.find("log_config");
  const ConfigNode* hooks = log_config != nullptr ? log_config->find("hooks") : nullptr;
  if (hooks == nullptr || !hooks->is_sequence()) return false;
  for (const ConfigNode& hook : hooks->elements()) {
    if (hook.get<std::string>("type", "") == type) return true;
  }
  return false;
}

}  // namespace

Trainer::Trainer(const ConfigNode& config, const TrainOptions& options)
    : config_(config), options_(options) {
  device_ = torch::cuda::is_available() ? c10::Device(c10::kCUDA, options.local_rank)
                                        : c10::Device(c10::kCPU);
  max_epochs_ = config.at("runner").at("max_epochs").as_int();
  if (const ConfigNode* log = config.find("log_config"))
    log_interval_ = log->get<int64_t>("interval", 10);
  if (const ConfigNode* checkpoint = config.find("checkpoint_config")) {
    checkpoint_interval_ = checkpoint->get<int64_t>("interval", 1);
    checkpoint_iter_interval_ = checkpoint->get<int64_t>("iter_interval", 0);
  }
  if (const ConfigNode* evaluation = config.find("evaluation")) {
    evaluation_interval_ = evaluation->get<int64_t>("interval", 1);
  }
  settings_ = training_settings_from_config(config, options.use_fp16);
  if (auto ds = deepspeed_config_of(config, options))
    settings_ = apply_deepspeed_config(settings_, *ds, 1);
  for (const std::string& source : settings_.sources) spdlog::info("setting {}", source);

  // The initial weights derive from the seed, like everything else random in a run.
  torch::manual_seed(static_cast<uint64_t>(options.seed));
  build_model();
  build_data();
  build_solver();
  const int64_t max_keep = config.find("checkpoint_config") != nullptr
                               ? config.at("checkpoint_config").get<int64_t>("max_keep_ckpts", -1)
                               : -1;
  checkpoints_ = std::make_unique<CheckpointKeeper>(options.work_dir, max_keep);
  json_log_ =
      std::make_unique<JsonLogFile>(fs::path(options.work_dir) / (log_timestamp() + ".log.json"));
  if (has_hook(config, "TensorboardLoggerHook")) {
    tensorboard_ = std::make_unique<TensorboardWriter>(fs::path(options.work_dir) / "tf_logs");
  }
  restore();
}

Trainer::~Trainer() = default;

void Trainer::build_model() {
  model_ = build_detector(config_.at("model"));
  model_->to(device_);
  spdlog::info("model {} on {}", config_.at("model").at("type").as_string(), device_.str());
}

void Trainer::build_data() {
  train_set_ = build_dataset(config_, "train", static_cast<uint64_t>(options_.seed));
  if (!options_.no_validate && config_.at("data").has("val")) {
    val_set_ = build_dataset(config_, "val", static_cast<uint64_t>(options_.seed));
  }
  SamplerOptions sampler;
  sampler.dataset_size = static_cast<int64_t>(train_set_->size());
  sampler.seed = static_cast<uint64_t>(options_.seed);
  DataLoaderOptions loader;
  loader.samples_per_gpu = settings_.samples_per_gpu;
  loader.workers_per_gpu = config_.at("data").get<int64_t>("workers_per_gpu", 1);
  loader.pin_memory = device_.is_cuda();
  loader_ = std::make_unique<DataLoader>(
      *train_set_, std::make_shared<DistributedGroupSampler>(sampler, settings_.samples_per_gpu),
      loader);
  micro_batches_per_epoch_ = loader_->batches_per_epoch();
  const int64_t accumulation = settings_.accumulation_steps;
  steps_per_epoch_ = (micro_batches_per_epoch_ + accumulation - 1) / accumulation;
  spdlog::info(
      "train: {} frames, {} micro-batches of {} per epoch, {} optimizer steps (accumulation {})",
      train_set_->size(), micro_batches_per_epoch_, settings_.samples_per_gpu, steps_per_epoch_,
      accumulation);
}

void Trainer::build_solver() {
  groups_ = build_param_groups(model_->named_parameters(), settings_.solver.param_group_rules());
  for (const ParamGroup& group : groups_) {
    params_.insert(params_.end(), group.params.begin(), group.params.end());
    spdlog::info("param group `{}`: {} tensors, lr {}, weight_decay {}",
                 group.custom_key.empty() ? "default" : group.custom_key, group.params.size(),
                 group.lr, group.weight_decay);
  }
  optimizer_ = build_optimizer(groups_, settings_.solver.adam);
  scheduler_ = build_lr_scheduler(settings_, groups_, max_epochs_, steps_per_epoch_);
  spdlog::info("lr schedule: {}", scheduler_->describe());
  if (settings_.precision.fp16) {
    scaler_ = std::make_unique<DynamicLossScaler>(settings_.precision.scaler);
    spdlog::info("mixed precision: {} autocast with the dynamic loss scaler: {}",
                 device_.is_cuda() ? "fp16" : "bf16 (fp16 is CUDA-only)", scaler_->describe());
  } else if (settings_.precision.bf16) {
    spdlog::info("mixed precision: bf16 autocast, no loss scaler");
  }
}

void Trainer::restore() {
  std::string resume = options_.resume_from;
  if (resume.empty()) resume = config_.get<std::string>("resume_from", "");
  if (resume == "auto") {
    const fs::path latest = checkpoints_->latest();
    if (latest.empty()) {
      spdlog::info("--resume-from auto: no checkpoint in {} yet, starting from scratch",
                   options_.work_dir);
    }
    resume = latest.string();
  }
  if (!resume.empty()) {
    const TrainingCheckpoint checkpoint = read_training_checkpoint(resume);
    load_state_dict(*model_, checkpoint.state_dict);
    adam_state_from_pth(*optimizer_, checkpoint.optimizer);
    scheduler_->load_state(checkpoint.scheduler);
    if (scaler_ && checkpoint.loss_scaler) scaler_->load_state(*checkpoint.loss_scaler);
    start_epoch_ = checkpoint.progress.epoch;
    resume_epoch_batches_ = checkpoint.progress.epoch_batches;
    iteration_ = checkpoint.progress.iteration;
    spdlog::info("resumed from {}: epoch {}, iter {}", resume, start_epoch_, iteration_);
    return;
  }
  std::string load = options_.load_from;
  if (load.empty()) load = config_.get<std::string>("load_from", "");
  if (!load.empty()) {
    LoadStateDictOptions load_options;
    load_options.strict = false;
    const LoadStateDictReport report =
        load_state_dict(*model_, read_checkpoint_weights(load), load_options);
    spdlog::info("loaded weights from {} ({} missing, {} unexpected keys)", load,
                 report.missing_keys.size(), report.unexpected_keys.size());
    for (const std::string& key : report.missing_keys)
      spdlog::warn("missing key in {}: {}", load, key);
    for (const std::string& key : report.unexpected_keys)
      spdlog::warn("unexpected key in {}: {}", load, key);
  }
}

void Trainer::run() {
  run_start_ = Clock::now();
  const ConfigNode* evaluation = config_.find("evaluation");
  if (val_set_ && start_epoch_ == 0 && iteration_ == 0 && evaluation != nullptr &&
      evaluation->get<bool>("before_train", false)) {
    run_validation(0);
  }
  for (int64_t epoch = start_epoch_; epoch < max_epochs_; ++epoch) {
    train_epoch(epoch);
    const int64_t done = epoch + 1;
    if (checkpoint_interval_ > 0 && (done % checkpoint_interval_ == 0 || done == max_epochs_)) {
      save_checkpoint("epoch_" + std::to_string(done) + ".pth", 0);
    }
    if (validation_due(done)) run_validation(done);
  }
}

bool Trainer::validation_due(int64_t epochs_done) const {
  if (!val_set_ || evaluation_interval_ <= 0) return false;
  return epochs_done % evaluation_interval_ == 0 || epochs_done == max_epochs_;
}

void Trainer::train_epoch(int64_t epoch) {
  current_epoch_ = epoch;
  model_->train();
  scheduler_->begin_epoch(epoch);
  buffer_.clear();
  loader_->start_epoch(epoch);
  const int64_t accumulation = settings_.accumulation_steps;
  int64_t idx = 0;
  if (epoch == start_epoch_ && resume_epoch_batches_ > 0) {
    // A mid-epoch checkpoint: the same sampler order, without the batches already trained on.
    for (; idx < resume_epoch_batches_ && loader_->next(); ++idx) {
    }
    resume_epoch_batches_ = 0;
  }
  StepLog log;
  bool step_open = false;
  Clock::time_point fetch_start = Clock::now();
  while (auto batch = loader_->next()) {
    const int64_t step_in_epoch = idx / accumulation;
    const int64_t step_first = step_in_epoch * accumulation;
    const int64_t in_step = std::min(accumulation, micro_batches_per_epoch_ - step_first);
    if (idx == step_first) {
      log = StepLog();
      scheduler_->begin_iteration(iteration_);
      torch::manual_seed(step_seed(static_cast<uint64_t>(options_.seed), iteration_));
    }
    log.data_time += seconds_since(fetch_start);
    forward_backward(batch->to(device_, device_.is_cuda()), in_step, log);
    step_open = idx - step_first + 1 < in_step;
    if (!step_open) finish_step(epoch, step_in_epoch, idx, log);
    ++idx;
    fetch_start = Clock::now();
  }
  // Batches skipped for bad frames (data.skip_bad_frames) can leave the last step short:
  // apply what it accumulated rather than carry its gradients into the next epoch.
  if (step_open) finish_step(epoch, (idx - 1) / accumulation, idx - 1, log);
}

void Trainer::forward_backward(const Batch& batch, int64_t micro_batches_in_step, StepLog& log) {
  LossMap losses;
  {
    std::optional<AutocastGuard> autocast;
    if (settings_.precision.fp16 || settings_.precision.bf16) {
      AutocastState state;
      state.enabled = true;
      state.dtype = (settings_.precision.fp16 && device_.is_cuda()) ? c10::ScalarType::Half
                                                                    : c10::ScalarType::BFloat16;
      autocast.emplace(device_.type(), state);
    }
    losses = model_->forward_train(batch);
  }
  const at::Tensor loss = total_loss(losses) / static_cast<double>(micro_batches_in_step);
  const double loss_value = loss.item<double>();
  if (!std::isfinite(loss_value) && !scaler_) {
    std::string terms;
    for (const auto& [name, value] : losses) {
      terms += (terms.empty() ? "" : ", ") + name + " " + python_float_repr(value.item<double>());
    }
    throw runtime_error("non-finite loss " + python_float_repr(loss_value) + " at iter " +
                        std::to_string(iteration_ + 1) + " (" + terms + ")");
  }
  (scaler_ ? scaler_->scale_loss(loss) : loss).backward();
  if (log.terms.empty()) {
    for (const auto& [name, value] : losses) log.terms.emplace_back(name, 0.0);
  }
  for (size_t i = 0; i < losses.size() && i < log.terms.size(); ++i) {
    log.terms[i].second +=
        losses[i].second.item<double>() / static_cast<double>(micro_batches_in_step);
  }
  log.loss += loss_value;
}

void Trainer::finish_step(int64_t epoch, int64_t step_in_epoch, int64_t idx, StepLog& log) {
  const StepOutcome outcome = finish_optimizer_step(*optimizer_, params_, *scheduler_,
                                                    scaler_.get(), settings_.solver.grad_clip);
  optimizer_->zero_grad();
  ++iteration_;
  ++steps_this_run_;

  buffer_.update("data_time", log.data_time);
  for (const auto& [name, value] : log.terms) buffer_.update(name, value);
  buffer_.update("loss", log.loss);
  if (std::isfinite(outcome.grad_norm)) buffer_.update("grad_norm", outcome.grad_norm);
  buffer_.update("time", seconds_since(log.start));
  if ((step_in_epoch + 1) % log_interval_ == 0) log_interval(epoch, step_in_epoch, idx);
  if (checkpoint_iter_interval_ > 0 && iteration_ % checkpoint_iter_interval_ == 0) {
    save_checkpoint("iter_" + std::to_string(iteration_) + ".pth", idx + 1);
  }
}

void Trainer::log_interval(int64_t epoch, int64_t step_in_epoch, int64_t idx) {
  buffer_.average(static_cast<size_t>(log_interval_));
  const double lr = optimizer_->param_groups().empty() ? 0.0 : group_lrs(*optimizer_).front();
  const double step_time = buffer_.output("time");
  const int64_t remaining = max_epochs_ * steps_per_epoch_ - iteration_;
  const double average_step =
      seconds_since(run_start_) / static_cast<double>(std::max<int64_t>(steps_this_run_, 1));

  TrainLine line;
  line.epoch = epoch;
  line.idx = idx;
  line.micro_batches = micro_batches_per_epoch_;
  line.iter = step_in_epoch;
  line.iters = micro_batches_per_epoch_ / settings_.accumulation_steps;
  line.samples_per_gpu = settings_.samples_per_gpu;
  line.accumulation = settings_.accumulation_steps;
  line.eta_seconds = average_step * static_cast<double>(remaining);
  line.iter_time_seconds = step_time;
  line.loss = buffer_.output("loss");
  for (const auto& [key, value] : buffer_.output()) {
    if (key != "data_time" && key != "time" && key != "grad_norm" && key != "loss")
      line.log_vars.emplace_back(key, value);
  }
  line.log_vars.emplace_back("loss", line.loss);
  line.lr = lr;
  line.grad_norm = buffer_.output("grad_norm");
  line.data_time = buffer_.output("data_time");
  line.memory_mb = peak_memory_mb();
  if (scaler_) {
    line.loss_scale = scaler_->scale();
    line.skipped_steps = scaler_->skipped_steps();
  }
  spdlog::info("{}", format_train_line(line));

  std::optional<double> scale;
  std::optional<int64_t> skipped;
  if (scaler_) {
    scale = scaler_->scale();
    skipped = scaler_->skipped_steps();
  }
  json_log_->write(
      train_record(epoch + 1, step_in_epoch + 1, lr, line.memory_mb, buffer_, scale, skipped));
  if (tensorboard_) {
    for (const auto& [key, value] : buffer_.output())
      tensorboard_->add_scalar("train/" + key, value, iteration_);
    tensorboard_->add_scalar("train/lr", lr, iteration_);
    if (scale) tensorboard_->add_scalar("train/loss_scale", *scale, iteration_);
  }
  buffer_.clear_output();
}

void Trainer::save_checkpoint(const std::string& name, int64_t epoch_batches) {
  TrainingCheckpoint checkpoint;
  checkpoint.state_dict = module_state_dict(*model_);
  checkpoint.optimizer = adam_state_to_pth(*optimizer_);
  checkpoint.scheduler = scheduler_->state();
  if (scaler_) checkpoint.loss_scaler = scaler_->state();
  // An epoch-end save counts the epoch as done; a mid-epoch save resumes inside it.
  checkpoint.progress.epoch = epoch_batches == 0 ? current_epoch_ + 1 : current_epoch_;
  checkpoint.progress.epoch_batches = epoch_batches;
  checkpoint.progress.iteration = iteration_;
  checkpoint.seed = static_cast<uint64_t>(options_.seed);
  checkpoint.config_text = to_yaml(config_);
  const fs::path path = checkpoints_->save(name, checkpoint);
  spdlog::info("saved checkpoint {}", path.string());
}

void Trainer::run_validation(int64_t epochs_done) {
  ValidationOptions options;
  options.workers = config_.at("data").get<int64_t>("workers_per_gpu", 1);
  options.device = device_;
  options.results_file =
      fs::path(options_.work_dir) / ("results_epoch_" + std::to_string(epochs_done) + ".json");
  spdlog::info("validating {} frames (epoch {})", val_set_->size(), epochs_done);
  const EvaluationMetrics metrics = validate(*model_, *val_set_, options);
  spdlog::info("Epoch(val) [{}] results {}\n{}", epochs_done, options.results_file.string(),
               format_metrics_table(metrics));
  const std::vector<std::pair<std::string, double>> values = {{"DET_l", metrics.det_l},
                                                              {"DET_t", metrics.det_t},
                                                              {"TOP_ll", metrics.top_ll},
                                                              {"TOP_lt", metrics.top_lt},
                                                              {"OLS", metrics.ols}};
  const double lr = group_lrs(*optimizer_).front();
  json_log_->write(val_record(epochs_done, iteration_, lr, values));
  if (tensorboard_) {
    for (const auto& [key, value] : values)
      tensorboard_->add_scalar("val/" + key, value, iteration_);
  }
  model_->train();
}

}  // namespace olv2
