#pragma once
#include <filesystem>
#include <string>

namespace olv2::test {

// A small synthetic OpenLane-V2 dataset written once per test binary by the built
// make_synthetic_data (`arguments` are its flags after --out-dir) and reused by its tests.
std::filesystem::path synthetic_dataset(const std::string& name, const std::string& arguments);

}  // namespace olv2::test
