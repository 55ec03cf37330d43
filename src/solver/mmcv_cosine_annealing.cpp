#include "olv2/solver/mmcv_cosine_annealing.h"

#include <cmath>
#include <sstream>

#include "olv2/util/error.h"
#include "olv2/util/math_constants.h"

namespace olv2 {

Schema CosineAnnealingOptions::schema() {
  return Schema::map()
      .required("policy", Schema::string())
      .optional("by_epoch", Schema::boolean())
      .optional("warmup", Schema::string().choices({"linear", "constant", "exp"}).nullable())
      .optional("warmup_iters", Schema::integer().range(0, 1e12))
      .optional("warmup_ratio", Schema::number().range(0.0, 1.0))
      .optional("warmup_by_epoch", Schema::boolean())
      .optional("min_lr", Schema::number().range(0.0, 1e3))
      .optional("min_lr_ratio", Schema::number().range(0.0, 1.0));
}

CosineAnnealingOptions CosineAnnealingOptions::from_config(const ConfigNode& lr_config) {
  CosineAnnealingOptions options;
  options.by_epoch = lr_config.get<bool>("by_epoch", options.by_epoch);
  options.warmup = lr_config.get<std::string>("warmup", "");
  options.warmup_iters = lr_config.get<int64_t>("warmup_iters", options.warmup_iters);
  options.warmup_ratio = lr_config.get<double>("warmup_ratio", options.warmup_ratio);
  options.warmup_by_epoch = lr_config.get<bool>("warmup_by_epoch", options.warmup_by_epoch);
  if (const ConfigNode* min_lr = lr_config.find("min_lr"); min_lr && !min_lr->is_null()) {
    options.min_lr = min_lr->as_double();
  }
  if (const ConfigNode* ratio = lr_config.find("min_lr_ratio"); ratio && !ratio->is_null()) {
    options.min_lr_ratio = ratio->as_double();
  }
  if (options.min_lr.has_value() == options.min_lr_ratio.has_value()) {
    throw input_error(lr_config.where() +
                      ": CosineAnnealing needs exactly one of min_lr and min_lr_ratio");
  }
  if (!options.warmup.empty() && options.warmup_iters <= 0) {
    throw input_error(lr_config.where() + ": warmup `" + options.warmup +
                      "` needs warmup_iters > 0");
  }
  if (!options.warmup.empty() && !(options.warmup_ratio > 0.0 && options.warmup_ratio <= 1.0)) {
    throw input_error(lr_config.at("warmup_ratio").where() + ": expected a ratio in (0, 1]");
  }
  return options;
}

std::unique_ptr<LrScheduler> CosineAnnealingOptions::build(const std::vector<ParamGroup>& groups,
                                                           int64_t max_epochs,
                                                           int64_t iters_per_epoch) const {
  std::vector<double> base_lrs;
  for (const ParamGroup& group : groups) base_lrs.push_back(group.lr);
  return std::make_unique<MmcvCosineAnnealing>(*this, base_lrs, max_epochs, iters_per_epoch);
}

namespace {

void validate(const CosineAnnealingOptions& options) {
  if (options.min_lr.has_value() == options.min_lr_ratio.has_value()) {
    throw input_error(
        "lr_config (CosineAnnealing): give exactly one of min_lr "
        "and min_lr_ratio");
  }
  if (options.warmup.empty()) return;
  if (options.warmup != "constant" && options.warmup != "linear" && options.warmup != "exp") {
    throw input_error("lr_config: warmup `" + options.warmup +
                      "` is not supported, expected constant, linear or exp");
  }
  if (options.warmup_iters <= 0) {
    throw input_error(
        "lr_config: warmup_iters must be a positive integer when "
        "warmup is set");
  }
  if (!(options.warmup_ratio > 0.0 && options.warmup_ratio <= 1.0)) {
    throw input_error("lr_config: warmup_ratio must be in (0, 1]");
  }
}

}  // namespace

MmcvCosineAnnealing::MmcvCosineAnnealing(const CosineAnnealingOptions& options,
                                         std::vector<double> base_lrs, int64_t max_epochs,
                                         int64_t iters_per_epoch)
    : options_(options),
      base_lrs_(std::move(base_lrs)),
      max_epochs_(max_epochs),
      iters_per_epoch_(iters_per_epoch),
      warmup_iters_(options.warmup_by_epoch ? options.warmup_iters * iters_per_epoch
                                            : options.warmup_iters),
      regular_(base_lrs_),
      lrs_(base_lrs_) {
  validate(options_);
  if (max_epochs_ <= 0 || iters_per_epoch_ <= 0) {
    throw input_error(
        "lr_config: the schedule needs max_epochs > 0 and "
        "iterations per epoch > 0");
  }
}

double MmcvCosineAnnealing::annealing_cos(double start, double end, double factor) {
  const double cos_out = std::cos(kPi * factor) + 1;
  return end + 0.5 * 1 * (start - end) * cos_out;
}

std::vector<double> MmcvCosineAnnealing::regular_lrs(double progress, double max_progress) const {
  std::vector<double> values;
  values.reserve(base_lrs_.size());
  for (const double base : base_lrs_) {
    const double target = options_.min_lr_ratio ? base * *options_.min_lr_ratio : *options_.min_lr;
    values.push_back(annealing_cos(base, target, progress / max_progress));
  }
  return values;
}

std::vector<double> MmcvCosineAnnealing::warmup_lrs(int64_t iteration) const {
  const double done = static_cast<double>(iteration) / static_cast<double>(warmup_iters_);
  std::vector<double> values;
  values.reserve(regular_.size());
  for (const double regular : regular_) {
    if (options_.warmup == "constant") {
      values.push_back(regular * options_.warmup_ratio);
    } else if (options_.warmup == "linear") {
      const double k = (1 - done) * (1 - options_.warmup_ratio);
      values.push_back(regular * (1 - k));
    } else {
      values.push_back(regular * std::pow(options_.warmup_ratio, 1 - done));
    }
  }
  return values;
}

void MmcvCosineAnnealing::begin_epoch(int64_t epoch) {
  epoch_ = epoch;
  if (!options_.by_epoch) return;
  regular_ = regular_lrs(static_cast<double>(epoch), static_cast<double>(max_epochs_));
  lrs_ = regular_;
}

void MmcvCosineAnnealing::begin_iteration(int64_t iteration) {
  iteration_ = iteration;
  const bool warming = !options_.warmup.empty();
  if (!options_.by_epoch) {
    regular_ = regular_lrs(static_cast<double>(iteration),
                           static_cast<double>(max_epochs_ * iters_per_epoch_));
    lrs_ = (!warming || iteration >= warmup_iters_) ? regular_ : warmup_lrs(iteration);
    return;
  }
  if (!warming || iteration > warmup_iters_) return;
  lrs_ = iteration == warmup_iters_ ? regular_ : warmup_lrs(iteration);
}

LrSchedulerState MmcvCosineAnnealing::state() const {
  LrSchedulerState state;
  state.policy = name();
  state.epoch = epoch_;
  state.iteration = iteration_;
  state.base_lrs = base_lrs_;
  return state;
}

void MmcvCosineAnnealing::load_state(const LrSchedulerState& state) {
  if (state.policy != name() || state.base_lrs.size() != base_lrs_.size()) {
    throw input_error("scheduler state of `" + state.policy + "` with " +
                      std::to_string(state.base_lrs.size()) + " param groups cannot resume " +
                      name() + " with " + std::to_string(base_lrs_.size()));
  }
  base_lrs_ = state.base_lrs;
  regular_ = base_lrs_;
  lrs_ = base_lrs_;
  epoch_ = -1;
  iteration_ = -1;
  if (state.epoch >= 0) begin_epoch(state.epoch);
  if (state.iteration >= 0) begin_iteration(state.iteration);
}

std::string MmcvCosineAnnealing::describe() const {
  std::ostringstream out;
  out << "mmcv CosineAnnealing by " << (options_.by_epoch ? "epoch" : "iteration") << " to ";
  if (options_.min_lr_ratio) {
    out << "min_lr_ratio " << *options_.min_lr_ratio;
  } else {
    out << "min_lr " << *options_.min_lr;
  }
  if (!options_.warmup.empty()) {
    out << ", " << options_.warmup << " warm-up over " << warmup_iters_ << " iterations from ratio "
        << options_.warmup_ratio;
  }
  return out.str();
}

}  // namespace olv2
