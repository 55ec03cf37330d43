#include "olv2/data/bezier.h"

#include <gtest/gtest.h>

#include <cmath>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

// A polyline sampled at t_i = i / (n - 1) from the Bezier curve with `control` points.
std::vector<double> sample_curve(const std::vector<double>& control, int n_control, int n) {
  std::vector<double> points;
  for (int i = 0; i < n; ++i) {
    const std::vector<double> p =
        evaluate_bezier(control, n_control, 3, static_cast<double>(i) / (n - 1));
    points.insert(points.end(), p.begin(), p.end());
  }
  return points;
}

TEST(Bezier, FitsEndpointsExactly) {
  // A wiggly polyline no quartic fits exactly: the end points must still be copied bit for bit.
  std::vector<double> points;
  const int n = 201;
  for (int i = 0; i < n; ++i) {
    const double s = i * 0.37;
    points.insert(points.end(), {s + 0.1 * std::sin(3 * s), std::cos(s) * 4.0 - 1.3, 0.05 * s * s});
  }
  const std::vector<double> control = fit_bezier_endpoint_fixed(points, n, 3, 5);
  ASSERT_EQ(control.size(), 15u);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(control[d], points[d]);
    EXPECT_EQ(control[12 + d], points[(n - 1) * 3 + d]);
  }
}

TEST(Bezier, RecoversTheControlPointsOfAnExactQuartic) {
  const std::vector<double> truth = {0, 0, 0, 10, 2, 0.5, 20, -3, 1, 35, 4, 0.2, 50, 1, -0.4};
  const std::vector<double> fitted =
      fit_bezier_endpoint_fixed(sample_curve(truth, 5, 201), 201, 3, 5);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_NEAR(fitted[i], truth[i], 1e-9) << i;
}

TEST(Bezier, StraightLineGivesEvenlySpacedControlPoints) {
  std::vector<double> points;
  for (int i = 0; i < 11; ++i) points.insert(points.end(), {i * 2.0, 1.0, -0.5});
  const std::vector<double> control = fit_bezier_endpoint_fixed(points, 11, 3, 5);
  for (int j = 0; j < 5; ++j) {
    EXPECT_NEAR(control[j * 3 + 0], 5.0 * j, 1e-12);
    EXPECT_NEAR(control[j * 3 + 1], 1.0, 1e-12);
    EXPECT_NEAR(control[j * 3 + 2], -0.5, 1e-12);
  }
}

TEST(Bezier, TooFewPointsIsAnError) {
  const std::vector<double> points = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  EXPECT_THROW(fit_bezier_endpoint_fixed(points, 3, 3, 5), Error);
}

}  // namespace
}  // namespace olv2
