// test_ds: scores a checkpoint on a split of OpenLane-V2 and writes its predictions.
#include "cli/test_ds_options.h"
#include "olv2/engine/inference_command.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"

namespace olv2::programs::test_ds {

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();
  return olv2::guarded_main("test_ds", [&] {
    const auto options = olv2::parse_inference_options(argc, argv);
    return options ? olv2::run_inference_command(*options) : 0;
  });
}

}  // namespace olv2::programs::test_ds
