#pragma once
// Tolerances shared by the tests that compare against the fixtures' goldens.

namespace olv2::test {

// Camera matrices (lidar2img, intrinsics), relative: float64 on both sides, so only rounding
// can differ.
constexpr double kMatrixRelTol = 1e-12;

}  // namespace olv2::test
