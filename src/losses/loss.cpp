#include "olv2/losses/loss.h"

#include "olv2/losses/cross_entropy_loss.h"
#include "olv2/losses/dice_loss.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/giou_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/losses/pts_dir_cos_loss.h"

namespace olv2 {

const Registry<Loss>& loss_registry() {
  using LossRegistry = Registry<Loss>;
  static const LossRegistry registry(
      "loss", {
                  {"CrossEntropyLoss", LossRegistry::entry<CrossEntropyLoss>()},
                  {"DiceLoss", LossRegistry::entry<DiceLoss>()},
                  {"FocalLoss", LossRegistry::entry<FocalLoss>()},
                  {"GIoULoss", LossRegistry::entry<GIoULoss>()},
                  {"L1Loss", LossRegistry::entry<L1Loss>()},
                  {"PtsDirCosLoss", LossRegistry::entry<PtsDirCosLoss>()},
              });
  return registry;
}

}  // namespace olv2
