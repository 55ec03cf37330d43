#pragma once
// The attentions a transformer layer's `attn_cfgs` (and a spatial cross-attention's
// `deformable_attention`) may name, by `type`.
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/util/error.h"

namespace olv2 {

// An attention's options, as read from its config entry. The attentions' forward signatures
// differ (queries over image levels, BEV queries over cameras, the previous BEV), so each layer
// of a model runs fixed attentions and reads its entries as the options of the ones it runs
// (`read_attention`); the registry gives every attention one schema and reader, and names the
// known types.
struct AttentionOptions {
  virtual ~AttentionOptions() = default;
};

// Every attention type by its original name.
const Registry<AttentionOptions>& attention_registry();

// The attention configured by `section`, read in the registry `scope` (Registry::read), which
// must be an `Options` (the one the layer runs there, named `runs` in the message).
template <typename Options>
Options read_attention(const ConfigNode& section, const std::string& runs,
                       const std::string& scope = "") {
  const std::shared_ptr<const AttentionOptions> options = attention_registry().read(section, scope);
  const auto* typed = dynamic_cast<const Options*>(options.get());
  if (typed == nullptr) {
    throw input_error(section.where() + ": this layer runs " + runs + " here, not `" +
                      section.at("type").as_string() +
                      "` (the attentions of a layer are fixed by the model)");
  }
  return *typed;
}

}  // namespace olv2
