// The YAML config loader and the train config's schema, then the round trip through to_yaml.
#include "fuzz_target.h"
#include "olv2/config/config_loader.h"
#include "olv2/config/config_yaml.h"
#include "olv2/config/schema.h"
#include "olv2/engine/settings/train_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return olv2::fuzz::accept_only_olv2_errors([&] {
    const olv2::ConfigNode root =
        olv2::parse_yaml(std::string(olv2::fuzz::as_text(data, size)), "fuzz.yaml");
    const std::string text = olv2::to_yaml(root);
    olv2::parse_yaml(text, "fuzz.yaml (written back)");
    olv2::validate_config(root, olv2::train_config_schema());
  });
}
