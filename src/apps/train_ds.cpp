// train_ds: trains and validates an OpenLane-V2 topology model from a YAML config.
#include "cli/train_ds_options.h"
#include "olv2/engine/train_command.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"

namespace olv2::programs::train_ds {

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();
  return olv2::guarded_main("train_ds", [&] {
    const auto options = olv2::parse_train_options(argc, argv);
    return options ? olv2::run_train_command(*options) : 0;
  });
}

}  // namespace olv2::programs::train_ds
