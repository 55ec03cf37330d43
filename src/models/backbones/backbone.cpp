#include "olv2/models/backbones/backbone.h"

#include "olv2/models/backbones/resnet.h"

namespace olv2 {

const PartRegistry<BackboneOptions>& backbone_registry() {
  using Registry = PartRegistry<BackboneOptions>;
  static const Registry registry("backbone", {
                                                 {"ResNet", Registry::part<ResNetOptions>()},
                                             });
  return registry;
}

}  // namespace olv2
