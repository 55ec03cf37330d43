#include "olv2/data/frame.h"

namespace olv2 {

const char* subset_name(Subset subset) { return subset == Subset::kA ? "A" : "B"; }

std::vector<std::string> subset_camera_names(Subset subset) {
  if (subset == Subset::kA) return {kSubsetACameraNames.begin(), kSubsetACameraNames.end()};
  return {kSubsetBCameraNames.begin(), kSubsetBCameraNames.end()};
}

}  // namespace olv2
