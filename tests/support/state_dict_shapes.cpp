#include "support/state_dict_shapes.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "olv2/util/state_dict.h"

namespace olv2::test {

StateDictShapes original_state_dict_shapes(const std::filesystem::path& json) {
  std::ifstream in(json);
  const nlohmann::ordered_json shapes = nlohmann::ordered_json::parse(in);
  StateDictShapes out;
  for (const auto& [name, shape] : shapes.items()) {
    out.emplace_back(name, shape.get<std::vector<int64_t>>());
  }
  return out;
}

StateDictShapes state_dict_shapes(const torch::nn::Module& module) {
  StateDictShapes out;
  for (const auto& [name, tensor] : module_state_dict(module)) {
    out.emplace_back(name, tensor.sizes().vec());
  }
  return out;
}

}  // namespace olv2::test
