#include "olv2/losses/loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "olv2/config/config_loader.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// A loss section builds the loss its type names, with mmdet's defaults for the keys it leaves
// out (a `loss_bbox: {type: L1Loss}` weighs 1, not the head's 5).
TEST(LossRegistry, BuildsTheNamedLossWithItsOwnDefaults) {
  const ConfigNode head = parse_yaml("{loss_bbox: {type: L1Loss}}", "cfg.yaml");
  auto fallback = std::make_shared<L1Loss>();
  fallback->loss_weight = 5.0;
  const std::shared_ptr<const Loss> loss =
      read_for_kind(loss_registry(), head, "loss_bbox", PredictionKind::kBoxes,
                    std::shared_ptr<const Loss>(fallback));
  const at::Tensor value =
      loss->compute(torch::tensor({{1.0, 2.0}}), torch::tensor({{0.0, 0.0}}), {}, std::nullopt);
  EXPECT_DOUBLE_EQ(value.item<double>(), 1.5);  // mean of |1| and |2|, weight 1
  const ConfigNode absent = parse_yaml("{num_classes: 1}", "cfg.yaml");
  EXPECT_EQ(read_for_kind(loss_registry(), absent, "loss_bbox", PredictionKind::kBoxes,
                          std::shared_ptr<const Loss>(fallback)),
            fallback);
}

TEST(LossRegistry, RefusesALossOfOtherPredictionsAndUnknownTypes) {
  const ConfigNode head =
      parse_yaml("{loss_cls: {type: GIoULoss}, loss_bbox: {type: SmoothL1Loss}}", "cfg.yaml");
  try {
    read_for_kind(loss_registry(), head, "loss_cls", PredictionKind::kClassScores, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("key `loss_cls`: `GIoULoss` cannot compare class scores (the "
                        "predictions of this key)"),
              std::string::npos)
        << error.what();
  }
  try {
    read_for_kind(loss_registry(), head, "loss_bbox", PredictionKind::kBoxes, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("unknown loss type `SmoothL1Loss` (expected one of: CrossEntropyLoss, "
                        "DiceLoss, FocalLoss, "
                        "GIoULoss, L1Loss, PtsDirCosLoss)"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
