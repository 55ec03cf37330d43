#include "olv2/losses/loss_weight_config.h"

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema weighted_loss_schema(const std::string& type) {
  Schema loss = typed_schema(type);
  loss.optional("loss_weight", Schema::number());
  return loss;
}

double loss_weight_from_config(const ConfigNode& section, const std::string& key, double fallback) {
  return nested_number(section, key, "loss_weight", fallback);
}

}  // namespace olv2
