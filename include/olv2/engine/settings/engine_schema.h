#pragma once
#include <string>
#include <vector>

#include "olv2/config/schema.h"

namespace olv2 {

Schema runner_schema();  // `runner`
Schema bf16_schema();    // `bf16`

}  // namespace olv2
