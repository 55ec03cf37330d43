#include "olv2/data/transforms/registry.h"

#include "olv2/data/transforms/collect.h"
#include "olv2/data/transforms/format_bundle.h"
#include "olv2/data/transforms/load_multiview_images.h"
#include "olv2/data/transforms/normalize_multiview_images.h"
#include "olv2/data/transforms/pad_multiview_images.h"
#include "olv2/data/transforms/parameterize_lanes.h"
#include "olv2/data/transforms/photometric_distortion.h"
#include "olv2/data/transforms/resize_front_view.h"

namespace olv2 {

const Registry<Transform>& transform_registry() {
  using TransformRegistry = Registry<Transform>;
  static const TransformRegistry registry(
      "transform",
      {
          {"CustomLoadMultiViewImageFromFiles", TransformRegistry::entry<LoadMultiViewImages>()},
          {"NormalizeMultiviewImage", TransformRegistry::entry<NormalizeMultiViewImages>()},
          {"PhotoMetricDistortionMultiViewImage",
           TransformRegistry::entry<PhotoMetricDistortion>()},
          {"ResizeFrontView", TransformRegistry::entry<ResizeFrontView>()},
          {"CustomPadMultiViewImage", TransformRegistry::entry<PadMultiViewImages>()},
          {"CustomParameterizeLane", TransformRegistry::entry<ParameterizeLanes>()},
          {"CustomDefaultFormatBundle", TransformRegistry::entry<FormatBundle>()},
          {"Collect", TransformRegistry::entry<Collect>()},
      });
  return registry;
}

}  // namespace olv2
