#pragma once
// A split's dataset built from the config: its location, subset, pipeline and bad-frame policy.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/dataset.h"
#include "olv2/data/dataset_location.h"
#include "olv2/data/pipeline.h"

namespace olv2 {

// One split's dataset as a validated config describes it, read once: where it is
// (dataset_location.h), the subset its `type` names, its own `pipeline` list, built, and
// `data.skip_bad_frames` and `data.max_frames`.
struct DatasetSpec {
  DatasetLocation location;
  std::optional<Subset> subset;  // the `type`'s (OpenLaneV2SubsetADataset or ...BDataset)
  std::vector<std::string> excluded_sources;  // logs left out (TopoNet's filter_map_change)
  Pipeline pipeline;
  bool skip_bad_frames = false;
  std::optional<int64_t> max_frames;  // `data.max_frames`

  // One dataset entry (`data.train`, `data.val`, `data.test`): `type`, `data_root`,
  // `meta_root`, `collection`, `pipeline`, `test_mode`; or TopoNet's: `ann_file` for
  // `collection` (dataset_location.h), `split`, `classes`, `modality`, `filter_map_change`
  // (the training split without the four logs whose maps changed).
  static Schema schema();
  // The spec of `data.<split_key>` of a validated config.
  static DatasetSpec from_config(const ConfigNode& root, const std::string& split_key);
};

// The frames of `spec`, as its dataset reads them.
FrameIndex build_frame_index(const DatasetSpec& spec);

// The dataset of `spec`; augmentation draws from `seed`.
std::unique_ptr<OpenLaneV2Dataset> build_dataset(const DatasetSpec& spec, uint64_t seed);

}  // namespace olv2
