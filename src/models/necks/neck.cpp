#include "olv2/models/necks/neck.h"

#include "olv2/models/necks/custom_fpn.h"
#include "olv2/models/necks/fpn.h"

namespace olv2 {

const Registry<NeckOptions>& neck_registry() {
  using Registry = Registry<NeckOptions>;
  static const Registry registry("neck", {
                                             {"CustomFPN", Registry::entry<CustomFpnOptions>()},
                                             {"FPN", Registry::entry<FpnOptions>()},
                                         });
  return registry;
}

}  // namespace olv2
