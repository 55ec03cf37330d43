#pragma once
#include <string>
#include <vector>

#include "olv2/config/schema.h"

namespace olv2 {

Schema runner_schema();  // `runner`
Schema fp16_schema();    // `fp16` (our key; DeepSpeed's loss-scaler names)
Schema bf16_schema();    // `bf16`

}  // namespace olv2
