// The YAML config loader, the round trip through to_yaml, and the schema machinery with the data
// section's schema (nested maps, sequences, ranges, choices and the pipeline's tagged
// registries): the parsing layers only, without the models and engine that the whole train
// schema would bring in.
#include "fuzz_target.h"
#include "olv2/config/config_loader.h"
#include "olv2/config/config_yaml.h"
#include "olv2/config/schema.h"
#include "olv2/data/data_section.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const olv2::Schema schema =
      olv2::Schema::map().optional("data", olv2::DataSection::schema());
  return olv2::fuzz::accept_only_olv2_errors([&] {
    const olv2::ConfigNode root =
        olv2::parse_yaml(std::string(olv2::fuzz::as_text(data, size)), "fuzz.yaml");
    const std::string text = olv2::to_yaml(root);
    olv2::parse_yaml(text, "fuzz.yaml (written back)");
    olv2::validate_config(root, schema);
  });
}
