#pragma once
// The `test_ds` command: predicting a split with a checkpoint, then submission, results, pictures
// and metrics.
#include <c10/core/Device.h>

#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/engine/settings/inference_options.h"
#include "olv2/models/detectors/detector.h"

namespace olv2 {

// The config test_ds reads: the file, then --cfg-options and --max-frames, checked against the
// training schema; a config without `data.<split>` is an input error.
ConfigNode resolve_inference_config(const InferenceOptions& options);

// The config's model with the checkpoint's weights, strictly: a checkpoint of another model is
// an input error naming the keys. No pretrained backbone is read: the checkpoint replaces it.
std::shared_ptr<DetectorImpl> model_from_checkpoint(const DetectorOptions& model_options,
                                                    const std::string& checkpoint,
                                                    const c10::Device& device);

// An input error naming `checkpoint` when it is not a file.
void require_checkpoint_file(const std::string& checkpoint);

// The whole `test_ds` run for parsed options; returns the exit status. Loads the config (its
// `_base_` files and --cfg-options, checked against the training schema), builds the model of
// `model` with the checkpoint's weights (strict: every parameter and buffer), predicts every
// frame of `data.<split>` with its pipeline (sharded over the ranks and gathered on rank 0 in
// frame order, as validation is; frames need no annotation), then on rank 0 writes what was
// asked for: the leaderboard submission pickle (`out`, with the config's `submission` metadata
// and the command line's in its place; on the test split incomplete metadata is refused before
// anything runs, elsewhere a warning), the results file (`results_out`), pictures of every
// predicted frame (`show_dir`), and with `eval` the official metrics, logged and written to
// `<work_dir>/eval_<timestamp>.json` (the annotation is read before predicting, so an
// unannotated split stops at once, naming a frame). Asking for none of these is a bad
// invocation.
int run_inference_command(const InferenceOptions& options);

}  // namespace olv2
