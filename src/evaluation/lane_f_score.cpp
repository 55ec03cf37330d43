#include "olv2/evaluation/lane_f_score.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "olv2/assign/linear_sum_assignment.h"

namespace olv2 {

namespace {

constexpr int kNumSamples = 100;  // x = -50, -49, ..., 49
constexpr double kFirstSample = -50.0;
constexpr double kDistanceThreshold = 1.5;  // metres
constexpr double kRatioThreshold = 0.75;
constexpr double kMatchCostLimit = kDistanceThreshold * kNumSamples;

double sample_x(int k) { return kFirstSample + k; }

// A lane resampled at the sample positions: y, z and visibility.
struct SampledLane {
  std::array<double, kNumSamples> y{};
  std::array<double, kNumSamples> z{};
  std::array<bool, kNumSamples> visible{};
  int visible_count = 0;
};

// scipy's interp1d(x, y, fill_value="extrapolate") on float32 points: x sorted stably, the
// segment of each sample found by a left binary search clipped to the first and last segment,
// the slope in float32, the value in double.
SampledLane sample_lane(const Polyline& lane) {
  std::vector<std::size_t> order(lane.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lane[a][0] < lane[b][0]; });
  std::vector<float> xs(lane.size());
  for (std::size_t i = 0; i < lane.size(); ++i) xs[i] = lane[order[i]][0];
  const float min_x = xs.front();
  const float max_x = xs.back();
  SampledLane sampled;
  for (int k = 0; k < kNumSamples; ++k) {
    const double x = sample_x(k);
    const auto above = static_cast<std::size_t>(
        std::lower_bound(xs.begin(), xs.end(), x,
                         [](float value, double key) { return static_cast<double>(value) < key; }) -
        xs.begin());
    const std::size_t hi = std::clamp<std::size_t>(above, 1, lane.size() - 1);
    const std::size_t lo = hi - 1;
    const float x_lo = xs[lo];
    const float dx = xs[hi] - x_lo;
    const auto& p_lo = lane[order[lo]];
    const auto& p_hi = lane[order[hi]];
    const float slope_y = (p_hi[1] - p_lo[1]) / dx;
    const float slope_z = (p_hi[2] - p_lo[2]) / dx;
    const double offset = x - static_cast<double>(x_lo);
    sampled.y[k] = static_cast<double>(slope_y) * offset + static_cast<double>(p_lo[1]);
    sampled.z[k] = static_cast<double>(slope_z) * offset + static_cast<double>(p_lo[2]);
    sampled.visible[k] = x >= static_cast<double>(min_x) && x <= static_cast<double>(max_x);
    sampled.visible_count += sampled.visible[k] ? 1 : 0;
  }
  return sampled;
}

// The devkit's integer pair cost: a sum in (0, 1) costs 1; any other is numpy's astype(int),
// truncation (a sum beyond int64, as NaN, becomes INT64_MIN), then astype(int32) in its
// min-cost flow, the low 32 bits: lanes some 1e7 m apart wrap to a negative cost there.
int32_t devkit_cost(double sum) {
  if (sum > 0.0 && sum < 1.0) return 1;
  int64_t wide = std::numeric_limits<int64_t>::min();
  if (std::isfinite(sum) && std::abs(sum) < 9.2e18) wide = static_cast<int64_t>(sum);
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(wide)));
}

// The lanes that take part: more than one point, starting before the last sample and ending
// after the first (first and last point as listed), visible at more than one sample.
std::vector<SampledLane> lanes_in_range(const std::vector<Polyline>& lanes) {
  std::vector<SampledLane> kept;
  for (const Polyline& lane : lanes) {
    if (lane.size() <= 1) continue;
    if (!(static_cast<double>(lane.front()[0]) < sample_x(kNumSamples - 1) &&
          static_cast<double>(lane.back()[0]) > sample_x(0))) {
      continue;
    }
    SampledLane sampled = sample_lane(lane);
    if (sampled.visible_count > 1) kept.push_back(sampled);
  }
  return kept;
}

struct FrameCounts {
  double recalled = 0;  // ground-truth lanes matched well enough
  double precise = 0;   // predicted lanes matched well enough
  double ground_truth = 0;
  double predicted = 0;
};

FrameCounts frame_counts(const std::vector<Polyline>& ground_truth_lanes,
                         const std::vector<Polyline>& predicted_lanes) {
  const std::vector<SampledLane> gt = lanes_in_range(ground_truth_lanes);
  const std::vector<SampledLane> pred = lanes_in_range(predicted_lanes);
  FrameCounts counts;
  counts.ground_truth = static_cast<double>(gt.size());
  counts.predicted = static_cast<double>(pred.size());
  if (gt.empty() || pred.empty()) return counts;

  const std::size_t rows = gt.size(), cols = pred.size();
  std::vector<double> cost(rows * cols);
  std::vector<double> close(rows * cols);  // samples visible in both and under the threshold
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      double sum = 0.0;
      int near = 0;
      for (int k = 0; k < kNumSamples; ++k) {
        const bool both = gt[i].visible[k] && pred[j].visible[k];
        const bool neither = !gt[i].visible[k] && !pred[j].visible[k];
        double distance = 0.0;
        if (both) {
          const double dy = std::abs(gt[i].y[k] - pred[j].y[k]);
          const double dz = std::abs(gt[i].z[k] - pred[j].z[k]);
          distance = std::sqrt(dy * dy + dz * dz);
          near += distance < kDistanceThreshold ? 1 : 0;
        } else if (!neither) {
          distance = kDistanceThreshold;
        }
        sum += distance;
      }
      close[i * cols + j] = near;
      cost[i * cols + j] = devkit_cost(sum);
    }
  }
  const Assignment matching =
      linear_sum_assignment(cost, static_cast<int64_t>(rows), static_cast<int64_t>(cols));
  for (std::size_t m = 0; m < matching.rows.size(); ++m) {
    const auto i = static_cast<std::size_t>(matching.rows[m]);
    const auto j = static_cast<std::size_t>(matching.cols[m]);
    if (!(cost[i * cols + j] < kMatchCostLimit)) continue;
    const double near = close[i * cols + j];
    if (near / gt[i].visible_count >= kRatioThreshold) counts.recalled += 1;
    if (near / pred[j].visible_count >= kRatioThreshold) counts.precise += 1;
  }
  return counts;
}

// x / y, or x / (y + 1e-6) when y is 0, as the devkit divides.
double guarded_ratio(double x, double y) { return y != 0.0 ? x / y : x / (y + 1e-6); }

}  // namespace

double lane_f_score(const std::vector<FrameGroundTruth>& ground_truth,
                    const std::vector<FramePrediction>& predictions) {
  FrameCounts total;
  for (std::size_t f = 0; f < ground_truth.size(); ++f) {
    std::vector<Polyline> predicted;
    for (const LanePrediction& lane : predictions[f].lanes) predicted.push_back(lane.points);
    const FrameCounts counts = frame_counts(ground_truth[f].lanes, predicted);
    total.recalled += counts.recalled;
    total.precise += counts.precise;
    total.ground_truth += counts.ground_truth;
    total.predicted += counts.predicted;
  }
  const double recall = guarded_ratio(total.recalled, total.ground_truth);
  const double precision = guarded_ratio(total.precise, total.predicted);
  return guarded_ratio(2.0 * recall * precision, recall + precision);
}

}  // namespace olv2
