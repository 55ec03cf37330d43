#include "olv2/models/heads/relation_head.h"

#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/heads/topology_head.h"

namespace olv2 {

const Registry<RelationHeadOptions>& relation_head_registry() {
  using Registry = Registry<RelationHeadOptions>;
  static const Registry registry(
      "relation head", {
                           {"RelationshipHead", Registry::entry<RelationshipHeadOptions>()},
                           {"TopologyHead", Registry::entry<TopologyHeadOptions>()},
                       });
  return registry;
}

}  // namespace olv2
