#pragma once
// The hook that ends training when a validation metric stops improving, mmengine's
// EarlyStoppingHook, and its options.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

// `custom_hooks: [{type: EarlyStoppingHook, ...}]`, mmengine's EarlyStoppingHook.
struct EarlyStoppingOptions : HookOptions {
  std::string monitor = "OLS";    // `monitor`: the headline metric watched
  bool greater_is_better = true;  // `rule`: greater (default) or less
  double min_delta = 0.0;         // `min_delta`: the least change that counts as better
  int64_t patience = 5;           // `patience`: validations without improvement tolerated
  bool check_finite = true;       // `check_finite`: a non-finite metric stops at once
  std::optional<double> stopping_threshold;  // `stopping_threshold`: reaching it stops

  static Schema schema();
  static EarlyStoppingOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

// Ends training when the monitored validation metric stops improving (mmengine's
// EarlyStoppingHook): after each validation, a score not better than the best by more than
// `min_delta` adds one to the wait, a better one resets it; `patience` waits, a non-finite score
// (`check_finite`) or one past `stopping_threshold` stop the run after that epoch, on every
// rank (rank 0 decides). Its best score and wait count are its state, so a resumed run counts
// on. Default priority ABOVE_NORMAL: after the validation, before the epoch's checkpoint.
class EarlyStoppingHook : public Hook {
 public:
  explicit EarlyStoppingHook(EarlyStoppingOptions options);
  void after_epoch(TrainContext& context) override;
  // `early_stopping_best_score`, `early_stopping_wait_count`.
  std::optional<PthValue> state() const override;
  void load_state(const PthValue& hook_msgs) override;

 private:
  // Rank 0, after a validation of `score`: why the run stops; empty: it goes on.
  std::string check(double score);

  EarlyStoppingOptions options_;
  double best_;
  int64_t wait_ = 0;
};

}  // namespace olv2
