#include "olv2/models/build.h"

#include <torch/torch.h>

#include "olv2/models/detectors/baseline.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/models/detectors/lanesegnet.h"
#include "olv2/models/detectors/lanesegnet_mapele_bucket.h"
#include "olv2/models/detectors/toponet.h"
#include "olv2/models/pretrained_checkpoint.h"

namespace olv2 {

const Registry<DetectorOptions>& detector_registry() {
  using Registry = Registry<DetectorOptions>;
  static const Registry registry(
      "model",
      {
          {"Baseline", Registry::entry<BaselineOptions>()},
          {"BaselineLarge", Registry::entry<BaselineLargeOptions>()},
          {"LaneSegNet", Registry::entry<LaneSegNetOptions>()},
          {"LaneSegNetMapElementBucket", Registry::entry<LaneSegNetMapElementBucketOptions>()},
          {"TopoNet", Registry::entry<TopoNetOptions>()},
      });
  return registry;
}

Schema model_schema() { return detector_registry().schema(); }

std::shared_ptr<const DetectorOptions> detector_options_from_config(const ConfigNode& model) {
  return detector_registry().read(model);
}

std::shared_ptr<DetectorImpl> build_detector(const DetectorOptions& options) {
  std::shared_ptr<DetectorImpl> detector = options.build();
  if (const std::optional<PretrainedCheckpoint> pretrained = options.pretrained_backbone()) {
    load_pretrained_weights(*detector->named_children()["img_backbone"], *pretrained);
  }
  return detector;
}

std::shared_ptr<DetectorImpl> build_detector(const ConfigNode& model) {
  return build_detector(*detector_options_from_config(model));
}

BevRange detector_bev_range(const ConfigNode& model) {
  return detector_options_from_config(model)->bev_range();
}

}  // namespace olv2
