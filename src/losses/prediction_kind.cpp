#include "olv2/losses/prediction_kind.h"

namespace olv2 {

const char* describe(PredictionKind kind) {
  switch (kind) {
    case PredictionKind::kClassScores:
      return "class scores";
    case PredictionKind::kBoxes:
      return "boxes";
    case PredictionKind::kLanePoints:
      return "lane points";
    case PredictionKind::kMaskLogits:
      return "mask logits";
    case PredictionKind::kPointDirections:
      return "point directions";
  }
  return "predictions";
}

}  // namespace olv2
