#include "olv2/data/transforms/registry.h"

#include "olv2/data/transforms/collect.h"
#include "olv2/data/transforms/collect_3d_lane.h"
#include "olv2/data/transforms/crop_front_view.h"
#include "olv2/data/transforms/format_bundle.h"
#include "olv2/data/transforms/generate_lane_segment_mask.h"
#include "olv2/data/transforms/grid_mask.h"
#include "olv2/data/transforms/lane_parameterize_3d.h"
#include "olv2/data/transforms/lane_segment_parameterize_3d.h"
#include "olv2/data/transforms/load_lane_annotations.h"
#include "olv2/data/transforms/load_lane_segment_annotations.h"
#include "olv2/data/transforms/load_multiview_images.h"
#include "olv2/data/transforms/normalize_multiview_images.h"
#include "olv2/data/transforms/pad_multiview_images.h"
#include "olv2/data/transforms/parameterize_lanes.h"
#include "olv2/data/transforms/photometric_distortion.h"
#include "olv2/data/transforms/random_scale_images.h"
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
          // TopoNet's pipeline; its pad and format bundle are the ones above under its names.
          {"LoadAnnotations3DLane", TransformRegistry::entry<LoadLaneAnnotations>()},
          {"CropFrontViewImageForAv2", TransformRegistry::entry<CropFrontView>()},
          {"RandomScaleImageMultiViewImage", TransformRegistry::entry<RandomScaleImages>()},
          {"PadMultiViewImageSame2Max", TransformRegistry::entry<PadMultiViewImages>()},
          {"GridMaskMultiViewImage", TransformRegistry::entry<GridMask>()},
          {"LaneParameterize3D", TransformRegistry::entry<LaneParameterize3D>()},
          {"CustomFormatBundle3DLane", TransformRegistry::entry<FormatBundle>()},
          {"CustomCollect3D", TransformRegistry::entry<Collect3DLane>()},
          // LaneSegNet's, with TopoNet's image transforms.
          {"LoadAnnotations3DLaneSegment", TransformRegistry::entry<LoadLaneSegmentAnnotations>()},
          {"LaneSegmentParameterize3D", TransformRegistry::entry<LaneSegmentParameterize3D>()},
          {"GenerateLaneSegmentMask", TransformRegistry::entry<GenerateLaneSegmentMask>()},
      });
  return registry;
}

}  // namespace olv2
