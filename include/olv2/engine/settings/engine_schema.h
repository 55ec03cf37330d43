#pragma once
#include <string>
#include <vector>

#include "olv2/config/schema.h"

namespace olv2 {

Schema runner_schema();             // `runner`
Schema log_config_schema();         // `log_config`
Schema checkpoint_config_schema();  // `checkpoint_config`
Schema evaluation_schema();         // `evaluation`
Schema submission_schema();         // `submission`: the results files' metadata
Schema fp16_schema();               // `fp16` (our key; DeepSpeed's loss-scaler names)
Schema bf16_schema();               // `bf16`

}  // namespace olv2
