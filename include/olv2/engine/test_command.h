#pragma once
#include "olv2/engine/settings/test_options.h"

namespace olv2 {

// The whole `test_ds` run for parsed options; returns the exit status. Loads the config (its
// `_base_` files and --cfg-options, checked against the training schema), builds the model of
// `model` with the checkpoint's weights (strict: every parameter and buffer), predicts every
// frame of `data.<split>` with its pipeline (sharded over the ranks and gathered on rank 0 in
// frame order, as validation is), then on rank 0 writes the results file (`results_json`) and,
// with `eval`, logs the official metrics and writes them to `<work_dir>/eval_<timestamp>.json`.
// Asking for neither is a bad invocation.
int run_test_command(const TestOptions& options);

}  // namespace olv2
