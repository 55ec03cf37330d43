#pragma once
// Two training runs compared at their first optimizer step.
#include <filesystem>
#include <vector>

namespace olv2::test {

// How far two first steps that batch the same frames differently may be apart. Their sums run
// in other orders, and the Baselines amplify the last bits: on an AMD EPYC with AVX2 only, one
// rank of two frames against two ranks of one measured 6.1e-5 on a logged loss
// (lcte_head.loss_rel, tiny.yaml), 1.6e-3 on a gradient (lcte_head's MLP, whose loss that is)
// and 2.5e-2 on the BaselineLarge's (large_tiny.yaml). A batching error is of another order: a
// gradient not averaged over the ranks is 1.0 from the batch's, a normaliser of one frame's
// counts moves its losses by their ratio.
struct FirstStepTolerances {
  // Each logged value, relative (and at least the log's rounding to 5 decimals).
  double logged = 2e-4;
  // Each parameter's gradient: the relative L2 of the difference, with a floor of 1e-3 times
  // the largest gradient's norm (support/step_comparison.h).
  double gradients = 5e-3;
};

// The first optimizer step of the runs in work dirs `expected` and `actual` (each having written
// epoch_1.pth after it) logged the same `keys` and took the same gradients. The gradients are
// read from the checkpoints' AdamW state, whose first moment after one step is 0.1 times the
// gradient, not from the weights: AdamW's first step moves every weight by about
// lr * sign(gradient), so a gradient component that is rounding noise moves its weight by ±lr
// in either run.
void expect_same_first_step(const std::filesystem::path& expected,
                            const std::filesystem::path& actual,
                            const std::vector<const char*>& keys,
                            const FirstStepTolerances& tolerances = {});

}  // namespace olv2::test
