#include "olv2/models/build.h"

#include <torch/torch.h>

#include "olv2/models/detectors/baseline.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/models/pretrained_checkpoint.h"

namespace olv2 {

const PartRegistry<DetectorOptions>& detector_registry() {
  using Registry = PartRegistry<DetectorOptions>;
  static const Registry registry("model",
                                 {
                                     {"Baseline", Registry::part<BaselineOptions>()},
                                     {"BaselineLarge", Registry::part<BaselineLargeOptions>()},
                                 });
  return registry;
}

Schema model_schema() { return detector_registry().schema(); }

std::shared_ptr<DetectorImpl> build_detector(const ConfigNode& model) {
  std::shared_ptr<DetectorImpl> detector = detector_registry().read(model)->build();
  const ConfigNode* init_cfg = model.at("img_backbone").find("init_cfg");
  if (init_cfg != nullptr && !init_cfg->is_null()) {
    load_pretrained_weights(*detector->named_children()["img_backbone"], *init_cfg);
  }
  return detector;
}

BevRange detector_bev_range(const ConfigNode& model) {
  return detector_registry().read(model)->bev_range();
}

}  // namespace olv2
