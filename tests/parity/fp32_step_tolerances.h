#pragma once
// How far a fixture model's fp32 training step on a GPU may be from the same step on the CPU
// (TF32 off, deterministic cuDNN, the CPU's matchings replayed): the largest relative
// difference of a loss term or a gradient (support/step_comparison.h).
#include "seeded_fixture_models.h"

namespace olv2::test {

// About ten times the largest of the spreads measured between CPU steps that differ only in the
// order of their sums, on an Intel Xeon with AVX-512 and on an AMD EPYC with AVX2 only (the
// largest relative difference, always a gradient; no loss term moved by more than 3.2e-7).
// On the EPYC, one thread against two: the Baseline's lane head's encoder gradients moved by
// 2.6e-5 on PyTorch 2.11's LibTorch and 3.6e-5 on Debian's 1.13
// (lc_head.transformer.encoder.layers.0.ffns.0.layers.0.0.weight; the original Baseline there
// moves them by 6.0e-5 itself, tests/support/baseline_gradient_records.h), BaselineLarge 2.2e-6,
// and TopoNet's first lane-topology branch 5.4e-4 on Debian's 1.13 (OpenBLAS;
// pts_bbox_head.lclc_branches.0.classifier.layers.0.weight, 9.6e-5 absolute, compared at the
// floor of 1e-3 of the largest gradient norm, 176) and 1.3e-6 on PyTorch 2.11's. On the Xeon:
// - one thread against two, the seeded weights under the same matchings: on PyTorch 2.11's
//   LibTorch (MKL) Baseline 3.96e-6 (img_backbone.conv1.weight), BaselineLarge 1.13e-6,
//   TopoNet 1.25e-6 (img_neck.lateral_convs.0.conv.bias); on Debian's 1.13 3.97e-6, 2.36e-6,
//   2.25e-6. Repeat with `build/tests/unit_tests --gtest_filter='Fp32Spread.*'` (or
//   build-debian/), which prints them and fails when one passes a quarter of its tolerance;
// - PyTorch 2.11's LibTorch against Debian's 1.13 (OpenBLAS, another oneDNN), one thread, the
//   fixture weights: Baseline 1.77e-6, BaselineLarge 5.58e-6 (the lane decoder's deformable
//   attention). Repeat with `probe_model configs/fixtures/baseline_large_reduced.yaml
//   --state-dict F/baseline_large_state_dict.pt --input F/baseline_large_input.pt --mode grads`
//   from build-debian/ (--out) and build/ (--compare-with); probe_model cannot run TopoNet.
inline double fp32_step_tolerance(FixtureModel model) {
  switch (model) {
    case FixtureModel::kBaseline:
      return 4e-4;
    case FixtureModel::kBaselineLarge:
      return 5e-5;
    case FixtureModel::kTopoNet:
      return 5e-3;
  }
  return 0.0;
}

}  // namespace olv2::test
