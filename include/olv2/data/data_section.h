#pragma once
// The config's `data` section: its batch and loader keys, declared and read in one place; each
// split is a DatasetSpec.
#include <cstdint>
#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct DataSection {
  int64_t samples_per_gpu = 1;
  int64_t workers_per_gpu = 1;              // loader threads per process
  int64_t gradient_accumulation_steps = 1;  // micro-batches per optimizer step (ours)
  bool skip_bad_frames = false;             // a frame that fails to load is skipped (ours)
  // Only the first this many frames of every split (ours; --max-frames): a quick run.
  std::optional<int64_t> max_frames;

  // The section: the keys above, the three splits (`train`, `val`, `test`: DatasetSpec,
  // dataset_builder.h) and mmdet's sampler keys, accepted and ignored.
  static Schema schema();
  static DataSection from_config(const ConfigNode& data);
};

// Sets `data.max_frames` of a full config to `max_frames` (--max-frames), when given.
void apply_frame_limit(ConfigNode& config, std::optional<int64_t> max_frames);

}  // namespace olv2
