#pragma once
// Validation during training, mmdet's EvalHook: its `evaluation` options, results files and best
// checkpoint.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/dataset.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/submission_metadata.h"
#include "olv2/evaluation/topology_metrics.h"
#include "olv2/visualization/frame_figure.h"

namespace olv2 {

// `evaluation`, and the top-level `submission` section that goes into every results file.
struct EvaluationOptions {
  int64_t interval = 1;  // epochs between validations (and after the last); 0: never
  bool before_train = false;
  int64_t visualize = 0;  // pictures of the first frames drawn per validation (`visualize`)
  // `save_best`: the headline metric whose best validation is kept as
  // `best_<metric>_epoch_<k>.pth`; empty: none. `rule`: greater (default) or less is better.
  std::string save_best;
  bool greater_is_better = true;
  // `keep_results`: how many of the latest `results_epoch_<k>.json` stay (the best epoch's
  // too); <= 0 keeps all.
  int64_t keep_results = 1;
  // `metric_version`: v1.1 (default) or v1.0, the devkit's TOP definitions of that tag.
  MetricVersion metric_version = MetricVersion::kV1_1;
  SubmissionMetadata submission = method_only("train_ds");  // `submission`

  static Schema schema();  // `pipeline` is accepted: validation uses `data.val.pipeline`
  // An absent `evaluation` keeps the defaults; `submission` is the top-level section.
  static EvaluationOptions from_config(const ConfigNode* evaluation, const ConfigNode* submission);
};

// The best validation so far, as mmcv's EvalHook keeps it (`best_score`, `best_ckpt`), with the
// metric and the epoch it was reached at.
struct BestCheckpoint {
  std::string metric;  // a headline metric: DET_l, DET_t, TOP_ll, TOP_lt or OLS
  double score = 0.0;
  int64_t epoch = 0;
  std::filesystem::path file;  // best_<metric>_epoch_<epoch>.pth
};

// The best validation a checkpoint's `meta.hook_msgs` holds; none when it holds none. Throws an
// input error naming a malformed entry.
std::optional<BestCheckpoint> best_checkpoint_of(const PthValue& hook_msgs);

// Validates on the val split (mmdet's EvalHook): before training when `before_train` is set
// and the run starts from scratch, every `interval` epochs and after the last. Writes
// `results_epoch_<k>.json` (with the `submission` metadata; older ones beyond `keep_results`
// are removed), logs the metrics table and leaves the metrics in `context.validation` for the
// loggers of the same hook point; with `visualize: K`, draws the first K frames into
// `vis_epoch_<k>/` with `figures`. With `save_best`, a validation better than every earlier one
// (strictly, by `rule`) is kept as `best_<metric>_epoch_<k>.pth` and the previous best file is
// removed, as mmcv's EvalHook; the best is the hook's state, so every later checkpoint holds
// it and a resumed run compares with it. Under several ranks each predicts its shard and rank 0
// scores, draws and saves.
class EvaluationHook : public Hook {
 public:
  EvaluationHook(EvaluationOptions options, const OpenLaneV2Dataset& dataset,
                 std::filesystem::path work_dir, int64_t workers, FigureOptions figures);
  void before_run(TrainContext& context) override;
  void before_epoch(TrainContext& context) override;
  void after_epoch(TrainContext& context) override;
  // `best_score`, `best_ckpt` (mmcv's EvalHook's), `best_metric`, `best_epoch`.
  std::optional<PthValue> state() const override;
  void load_state(const PthValue& hook_msgs) override;

 private:
  void validate_now(TrainContext& context, int64_t epochs_done);
  // Rank 0 (which holds `metrics`): whether this validation beats the best so far.
  bool improves(const EvaluationMetrics& metrics) const;
  void save_best(TrainContext& context, int64_t epochs_done, const EvaluationMetrics& metrics);

  EvaluationOptions options_;
  const OpenLaneV2Dataset& dataset_;
  std::filesystem::path work_dir_;
  int64_t workers_;
  FigureOptions figures_;
  std::optional<BestCheckpoint> best_;  // with `save_best`: the best validation so far
};

// `EvalHook` (priority ABOVE_NORMAL: after the optimizer step, before the epoch's checkpoint, so
// that the checkpoint holds the best so far; mmdet registers it LOW, after the checkpoint), built
// from `evaluation`'s keys and the top-level `submission` as its key `submission`. Nothing to
// do in a run without validation data.
struct EvalHookOptions : HookOptions {
  EvaluationOptions evaluation;

  static Schema schema();
  static EvalHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
