#pragma once
// mmcv's CosineAnnealing LR schedule with warm-up, the `lr_config` policy of the original configs.
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/solver/lr_scheduler.h"

namespace olv2 {

// mmcv's `lr_config` with policy CosineAnnealing (mmcv 1.x LrUpdaterHook
// semantics).
struct CosineAnnealingOptions : LrScheduleOptions {
  bool by_epoch = true;
  std::string warmup;  // "" (none), "constant", "linear" or "exp"
  int64_t warmup_iters = 0;
  double warmup_ratio = 0.1;
  bool warmup_by_epoch = false;  // warmup_iters then counts epochs
  std::optional<double> min_lr;
  std::optional<double> min_lr_ratio;  // exactly one of min_lr / min_lr_ratio

  // `lr_config` of `policy: CosineAnnealing`: mmcv's keys.
  static Schema schema();
  // Throws an input error naming the section when both or neither of min_lr / min_lr_ratio are
  // given, or warm-up is set without warmup_iters > 0.
  static CosineAnnealingOptions from_config(const ConfigNode& lr_config);
  std::unique_ptr<LrScheduler> build(const std::vector<ParamGroup>& groups, int64_t max_epochs,
                                     int64_t iters_per_epoch) const override;
};

// mmcv CosineAnnealingLrUpdaterHook exactly as the EpochBasedRunner drives it.
// With by_epoch the cosine value is set per epoch (progress epoch / max_epochs,
// so the minimum is never reached) and the warm-up, per iteration, multiplies
// the current epoch's value; at iteration == warmup_iters the epoch value is
// restored, after it nothing changes within the epoch. Values are computed in
// mmcv's operation order so they equal it as doubles.
class MmcvCosineAnnealing : public LrScheduler {
 public:
  // `base_lrs`: each param group's initial lr; `iters_per_epoch`: optimizer
  // steps per epoch.
  MmcvCosineAnnealing(const CosineAnnealingOptions& options, std::vector<double> base_lrs,
                      int64_t max_epochs, int64_t iters_per_epoch);

  void begin_epoch(int64_t epoch) override;
  void begin_iteration(int64_t iteration) override;
  const std::vector<double>& lrs() const override { return lrs_; }
  LrSchedulerState state() const override;
  void load_state(const LrSchedulerState& state) override;
  std::string name() const override { return "CosineAnnealing"; }
  std::string describe() const override;

  // mmcv's annealing_cos(start, end, factor) with weight 1.
  static double annealing_cos(double start, double end, double factor);

 private:
  std::vector<double> regular_lrs(double progress, double max_progress) const;
  std::vector<double> warmup_lrs(int64_t iteration) const;

  CosineAnnealingOptions options_;
  std::vector<double> base_lrs_;
  int64_t max_epochs_;
  int64_t iters_per_epoch_;
  int64_t warmup_iters_;
  int64_t epoch_ = -1;
  int64_t iteration_ = -1;
  std::vector<double> regular_;
  std::vector<double> lrs_;
};

}  // namespace olv2
