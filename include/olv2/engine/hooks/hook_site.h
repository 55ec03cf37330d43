#pragma once
// What a training run offers the hooks it builds.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "olv2/solver/grad_clip.h"
#include "olv2/visualization/frame_figure.h"

namespace olv2 {

class OpenLaneV2Dataset;

// The run a hook joins, one rank of it: what mmcv's Runner gives its hooks (work dir, rank,
// timestamp), the gradient clipping its optimizer step applies and its validation data.
struct HookSite {
  int64_t rank = 0;
  std::filesystem::path work_dir;
  std::string timestamp;  // the run's, naming its log files
  // The settings' gradient clipping (`optimizer_config.grad_clip`, or the DeepSpeed JSON's
  // `gradient_clipping`); none: no clipping.
  std::optional<GradClipOptions> grad_clip;
  const OpenLaneV2Dataset* val_set = nullptr;  // null: the run does not validate
  int64_t workers_per_gpu = 1;
  FigureOptions figures;  // for `evaluation.visualize`
};

}  // namespace olv2
