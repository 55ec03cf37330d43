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

const std::map<std::string, TransformFactory>& transform_registry() {
  static const std::map<std::string, TransformFactory> registry = {
      {"CustomLoadMultiViewImageFromFiles",
       {&LoadMultiViewImages::from_config, &LoadMultiViewImages::schema}},
      {"NormalizeMultiviewImage",
       {&NormalizeMultiViewImages::from_config, &NormalizeMultiViewImages::schema}},
      {"PhotoMetricDistortionMultiViewImage",
       {&PhotoMetricDistortion::from_config, &PhotoMetricDistortion::schema}},
      {"ResizeFrontView", {&ResizeFrontView::from_config, &ResizeFrontView::schema}},
      {"CustomPadMultiViewImage", {&PadMultiViewImages::from_config, &PadMultiViewImages::schema}},
      {"CustomParameterizeLane", {&ParameterizeLanes::from_config, &ParameterizeLanes::schema}},
      {"CustomDefaultFormatBundle", {&FormatBundle::from_config, &FormatBundle::schema}},
      {"Collect", {&Collect::from_config, &Collect::schema}},
  };
  return registry;
}

}  // namespace olv2
