#pragma once
// The schema of the config's `data` section and of each split's dataset entry.
#include "olv2/config/schema.h"

namespace olv2 {

// Schema of one dataset entry (`data.train`, `data.val`, `data.test`).
Schema dataset_schema();

// Schema of the `data` section: batch keys, loader keys, our own keys and the
// three splits.
Schema data_section_schema();

}  // namespace olv2
