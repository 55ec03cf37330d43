#include "olv2/solver/solver_config.h"

namespace olv2 {

Schema SolverOptions::optimizer_config_schema() {
  return Schema::map().optional("grad_clip", GradClipOptions::schema().nullable());
}

SolverOptions SolverOptions::from_config(const ConfigNode& optimizer,
                                         const ConfigNode* optimizer_config) {
  SolverOptions options;
  options.optimizer = optimizer_registry().read(optimizer);
  options.optimizer_section = optimizer;
  if (optimizer_config != nullptr && !optimizer_config->is_null()) {
    const ConfigNode* clip = optimizer_config->find("grad_clip");
    if (clip != nullptr && !clip->is_null())
      options.grad_clip = GradClipOptions::from_config(*clip);
  }
  return options;
}

}  // namespace olv2
