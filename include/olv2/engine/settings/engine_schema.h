#pragma once
// The schemas of the config's `runner` and `bf16` sections.
#include <string>
#include <vector>

#include "olv2/config/schema.h"

namespace olv2 {

Schema runner_schema();  // `runner`
Schema bf16_schema();    // `bf16`

}  // namespace olv2
