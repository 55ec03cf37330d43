#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/data/dataset.h"

namespace olv2 {

// The dataset of `data.<split_key>` of a validated config: its location (dataset_location.h),
// its own `pipeline` list and `data.skip_bad_frames`; augmentation draws from `seed`.
std::unique_ptr<OpenLaneV2Dataset> build_dataset(const ConfigNode& root,
                                                 const std::string& split_key, uint64_t seed);

}  // namespace olv2
