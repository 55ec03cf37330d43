#pragma once
// How far a fixture model's fp32 training step on a GPU may be from the same step on the CPU
// (TF32 off, deterministic cuDNN, the CPU's matchings replayed): the largest relative
// difference of a loss term or a gradient (support/step_comparison.h).
#include "seeded_fixture_models.h"

namespace olv2::test {

// About ten times the larger of two spreads measured between CPU steps that differ only in the
// order of their sums, on an Intel Xeon (the largest relative difference, always a gradient;
// no loss term moved by more than 3.2e-7):
// - one thread against two, the seeded weights under the same matchings: on PyTorch 2.11's
//   LibTorch (MKL) Baseline 3.96e-6 (img_backbone.conv1.weight), BaselineLarge 1.13e-6,
//   TopoNet 1.25e-6 (img_neck.lateral_convs.0.conv.bias); on Debian's 1.13 3.97e-6, 2.36e-6,
//   2.25e-6. Repeat with `build/tests/unit_tests --gtest_filter='Fp32Spread.*'` (or
//   build-debian/), which prints them and fails when one passes a quarter of its tolerance;
// - PyTorch 2.11's LibTorch against Debian's 1.13 (OpenBLAS, another oneDNN), one thread, the
//   fixture weights: Baseline 1.77e-6, BaselineLarge 5.58e-6 (the lane decoder's deformable
//   attention). Repeat with `probe_model configs/fixtures/baseline_large_reduced.yaml
//   --state-dict F/baseline_large_state_dict.pt --input F/baseline_large_input.pt --mode grads`
//   from build-debian/ (--out) and build/ (--compare-with); probe_model cannot run TopoNet, whose
//   tolerance is the BaselineLarge's: the same backbone, neck, BEV encoder and deformable
//   decoder attention.
inline double fp32_step_tolerance(FixtureModel model) {
  switch (model) {
    case FixtureModel::kBaseline:
      return 4e-5;
    case FixtureModel::kBaselineLarge:
      return 5e-5;
    case FixtureModel::kTopoNet:
      return 5e-5;
  }
  return 0.0;
}

}  // namespace olv2::test
