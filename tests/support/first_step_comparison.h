#pragma once
// Two training runs compared at their first optimizer step.
#include <filesystem>
#include <vector>

namespace olv2::test {

// The first optimizer step of the runs in work dirs `expected` and `actual` (each having written
// epoch_1.pth after it) gave the same logged `keys` and the same weights, within float32 sums
// in another order. `weight_atol`: AdamW's first step moves each weight by about
// lr * sign(gradient), so a gradient component near zero that the two runs round differently
// moves by up to lr.
void expect_same_first_step(const std::filesystem::path& expected,
                            const std::filesystem::path& actual,
                            const std::vector<const char*>& keys, double weight_atol = 1e-5);

}  // namespace olv2::test
