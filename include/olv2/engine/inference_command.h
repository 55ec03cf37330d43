#pragma once
// The `test_ds` command: predicting a split with a checkpoint, then submission, results, pictures
// and metrics.
#include "olv2/engine/settings/inference_options.h"

namespace olv2 {

// The whole `test_ds` run for parsed options; returns the exit status. Loads the config (its
// `_base_` files and --cfg-options, checked against the training schema), builds the model of
// `model` with the checkpoint's weights (strict: every parameter and buffer), predicts every
// frame of `data.<split>` with its pipeline (sharded over the ranks and gathered on rank 0 in
// frame order, as validation is; frames need no annotation), then on rank 0 writes what was
// asked for: the leaderboard submission pickle (`out`, with the config's `submission` metadata
// and the command line's in its place; on the test split incomplete metadata is refused before
// anything runs, elsewhere a warning), the results file (`results_json`), pictures of the first
// frames (`show_dir`), and with `eval` the official metrics, logged and written to
// `<work_dir>/eval_<timestamp>.json` (the annotation is read before predicting, so an
// unannotated split stops at once, naming a frame). Asking for none of these is a bad
// invocation.
int run_inference_command(const InferenceOptions& options);

}  // namespace olv2
