#pragma once
// State-dict layouts (names, shapes, order) of a model of ours and of an original's fixture.
#include <torch/nn/module.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace olv2::test {

using StateDictShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// A fixture's `{name: shape}` JSON, in its order (the original's state-dict order).
StateDictShapes original_state_dict_shapes(const std::filesystem::path& json);

// The module's state dict as the original orders it (util/state_dict.h), names with shapes.
StateDictShapes state_dict_shapes(const torch::nn::Module& module);

}  // namespace olv2::test
