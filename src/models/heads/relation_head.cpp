#include "olv2/models/heads/relation_head.h"

#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/heads/topology_head.h"

namespace olv2 {

const Registry<RelationHeadOptions>& relation_head_registry() {
  using Registry = Registry<RelationHeadOptions>;
  // LaneSegNet's copy of the head scores the matched pairs only.
  const Registry::Entry lanesegnet_relationship_head{
      RelationshipHeadOptions::schema_for("lanesegnet.RelationshipHead"),
      [](const ConfigNode& section,
         const std::string& /*scope*/) -> std::shared_ptr<const RelationHeadOptions> {
        return std::make_shared<const RelationshipHeadOptions>(
            RelationshipHeadOptions::matched_pairs_from_config(section));
      }};
  static const Registry registry(
      "relation head", {
                           {"RelationshipHead", Registry::entry<RelationshipHeadOptions>()},
                           {"lanesegnet.RelationshipHead", lanesegnet_relationship_head},
                           {"TopologyHead", Registry::entry<TopologyHeadOptions>()},
                       });
  return registry;
}

}  // namespace olv2
