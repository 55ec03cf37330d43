#include "olv2/models/backbones/backbone.h"

#include "olv2/models/backbones/resnet.h"

namespace olv2 {

const Registry<BackboneOptions>& backbone_registry() {
  using Registry = Registry<BackboneOptions>;
  static const Registry registry("backbone", {
                                                 {"ResNet", Registry::entry<ResNetOptions>()},
                                             });
  return registry;
}

}  // namespace olv2
