#include "olv2/models/bev/bev_constructor.h"

#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/bev/custom_ipm_view_transformer.h"

namespace olv2 {

const Registry<BevConstructorOptions>& bev_constructor_registry() {
  using Registry = Registry<BevConstructorOptions>;
  static const Registry registry(
      "BEV constructor",
      {
          {"BEVFormerConstructer", Registry::entry<BevFormerConstructerOptions>()},
          {"CustomIPMViewTransformer", Registry::entry<CustomIpmViewTransformerOptions>()},
      });
  return registry;
}

}  // namespace olv2
