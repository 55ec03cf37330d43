#include "olv2/models/necks/neck.h"

#include "olv2/models/necks/custom_fpn.h"
#include "olv2/models/necks/fpn.h"

namespace olv2 {

const PartRegistry<NeckOptions>& neck_registry() {
  using Registry = PartRegistry<NeckOptions>;
  static const Registry registry("neck", {
                                             {"CustomFPN", Registry::part<CustomFpnOptions>()},
                                             {"FPN", Registry::part<FpnOptions>()},
                                         });
  return registry;
}

}  // namespace olv2
