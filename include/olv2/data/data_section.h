#pragma once
// The config's `data` section: its batch and loader keys, declared and read in one place; each
// split is a DatasetSpec.
#include <cstdint>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct DataSection {
  int64_t samples_per_gpu = 1;
  int64_t workers_per_gpu = 1;              // loader threads per process
  int64_t gradient_accumulation_steps = 1;  // micro-batches per optimizer step (ours)
  bool skip_bad_frames = false;             // a frame that fails to load is skipped (ours)

  // The section: the keys above, the three splits (`train`, `val`, `test`: DatasetSpec,
  // dataset_builder.h) and mmdet's sampler keys, accepted and ignored.
  static Schema schema();
  static DataSection from_config(const ConfigNode& data);
};

}  // namespace olv2
