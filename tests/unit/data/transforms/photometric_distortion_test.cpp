// The photometric distortion draws with the original's probabilities and ranges (spec §2.4)
// from a generator that depends on (seed, epoch, sample index) only.
#include "olv2/data/transforms/photometric_distortion.h"

#include <gtest/gtest.h>

#include <map>
#include <opencv2/imgproc.hpp>

#include "olv2/config/config_loader.h"

namespace olv2 {
namespace {

constexpr int kDraws = 20000;
// A fair coin over kDraws draws stays within 5 standard deviations of one half.
const double kCoinTol = 5 * 0.5 / std::sqrt(static_cast<double>(kDraws));

PhotoMetricDistortion default_distortion() {
  return PhotoMetricDistortion(PhotoMetricDistortionOptions{});
}

struct Summary {
  int count = 0;
  double min = 1e300, max = -1e300, sum = 0;
  void add(double v) {
    ++count;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
  }
  double mean() const { return sum / count; }
};

TEST(PhotoMetricDistortion, DrawsFollowTheOriginalProbabilitiesAndRanges) {
  const PhotoMetricDistortion distortion = default_distortion();
  Summary brightness, contrast, saturation, hue;
  int n_brightness = 0, n_first = 0, n_contrast = 0, n_saturation = 0, n_hue = 0, n_swap = 0;
  std::map<std::array<int, 3>, int> permutations;
  for (int i = 0; i < kDraws; ++i) {
    std::mt19937_64 rng = make_sample_rng(7, 0, i);
    const PhotoMetricDistortion::Draw d = distortion.draw(rng);
    if (d.brightness) ++n_brightness, brightness.add(d.brightness_delta);
    if (d.contrast_first) ++n_first;
    if (d.contrast) ++n_contrast, contrast.add(d.contrast_alpha);
    if (d.saturation) ++n_saturation, saturation.add(d.saturation_scale);
    if (d.hue) ++n_hue, hue.add(d.hue_shift);
    if (d.swap) ++n_swap, ++permutations[d.permutation];
  }
  for (int n : {n_brightness, n_first, n_contrast, n_saturation, n_hue, n_swap}) {
    EXPECT_NEAR(static_cast<double>(n) / kDraws, 0.5, kCoinTol);
  }
  auto expect_uniform = [](const Summary& s, double low, double high, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_GE(s.min, low);
    EXPECT_LT(s.max, high);
    const double width = high - low;
    EXPECT_LT(s.min, low + 0.01 * width);  // the whole range is used
    EXPECT_GT(s.max, high - 0.01 * width);
    // The mean of n uniform draws has standard deviation width / sqrt(12 n).
    EXPECT_NEAR(s.mean(), (low + high) / 2, 5 * width / std::sqrt(12.0 * s.count));
  };
  expect_uniform(brightness, -32, 32, "brightness delta");
  expect_uniform(contrast, 0.5, 1.5, "contrast alpha");
  expect_uniform(saturation, 0.5, 1.5, "saturation scale");
  expect_uniform(hue, -18, 18, "hue shift");
  // numpy's permutation(3) can return any of the 6 orders, the identity included.
  ASSERT_EQ(permutations.size(), 6u);
  for (const auto& [order, n] : permutations) {
    EXPECT_NEAR(static_cast<double>(n) / n_swap, 1.0 / 6,
                5 * std::sqrt((1.0 / 6) * (5.0 / 6) / n_swap));
  }
}

TEST(PhotoMetricDistortion, DrawsDependOnlyOnSeedEpochAndIndex) {
  const PhotoMetricDistortion distortion = default_distortion();
  auto draws = [&](uint64_t seed, int64_t epoch, int64_t index) {
    std::mt19937_64 rng = make_sample_rng(seed, epoch, index);
    std::vector<float> values;
    for (int camera = 0; camera < 7; ++camera) {
      const auto d = distortion.draw(rng);
      values.insert(values.end(),
                    {d.brightness_delta, d.contrast_alpha, d.saturation_scale, d.hue_shift});
    }
    return values;
  };
  EXPECT_EQ(draws(1, 2, 3), draws(1, 2, 3));
  EXPECT_NE(draws(1, 2, 3), draws(1, 2, 4));
  EXPECT_NE(draws(1, 2, 3), draws(1, 3, 3));
  EXPECT_NE(draws(1, 2, 3), draws(2, 2, 3));
}

cv::Mat test_image() {
  cv::Mat image(6, 5, CV_32FC3);
  cv::randu(image, cv::Scalar::all(-2.0), cv::Scalar::all(2.0));
  return image;
}

TEST(PhotoMetricDistortion, BrightnessAndContrastAreAffineInNormalisedUnits) {
  const cv::Mat original = test_image();
  PhotoMetricDistortion::Draw d;
  d.brightness = true;
  d.brightness_delta = 3.0f;
  d.contrast_first = true;
  d.contrast = true;
  d.contrast_alpha = 1.25f;
  cv::Mat image = original.clone();
  PhotoMetricDistortion::distort(image, d);
  // The HSV round trip in float32 is exact to about 1e-6 relative.
  for (int y = 0; y < image.rows; ++y)
    for (int x = 0; x < image.cols; ++x)
      for (int c = 0; c < 3; ++c) {
        const float expected = (original.at<cv::Vec3f>(y, x)[c] + 3.0f) * 1.25f;
        EXPECT_NEAR(image.at<cv::Vec3f>(y, x)[c], expected, 1e-4);
      }
}

TEST(PhotoMetricDistortion, HueAndSaturationActOnOpenCvFloatHsv) {
  const cv::Mat original = test_image() + cv::Scalar::all(3.0);  // positive values
  PhotoMetricDistortion::Draw d;
  d.saturation = true;
  d.saturation_scale = 0.75f;
  d.hue = true;
  d.hue_shift = -15.0f;
  cv::Mat image = original.clone();
  PhotoMetricDistortion::distort(image, d);

  cv::Mat hsv;
  cv::cvtColor(original, hsv, cv::COLOR_BGR2HSV);
  for (int y = 0; y < hsv.rows; ++y)
    for (int x = 0; x < hsv.cols; ++x) {
      cv::Vec3f& p = hsv.at<cv::Vec3f>(y, x);
      p[1] *= 0.75f;
      p[0] -= 15.0f;
      if (p[0] < 0) p[0] += 360.0f;
    }
  cv::Mat expected;
  cv::cvtColor(hsv, expected, cv::COLOR_HSV2BGR);
  EXPECT_EQ(cv::norm(image, expected, cv::NORM_INF), 0.0);
}

TEST(PhotoMetricDistortion, ConfigParametersAreRead) {
  const ConfigNode node = parse_yaml(
      "{type: PhotoMetricDistortionMultiViewImage, brightness_delta: 4, contrast_range: [0.9, 1.1],"
      " saturation_range: [0.8, 1.2], hue_delta: 2}",
      "pipeline.yaml");
  const auto transform = PhotoMetricDistortion::from_config(node);
  const auto* distortion = dynamic_cast<const PhotoMetricDistortion*>(transform.get());
  ASSERT_NE(distortion, nullptr);
  for (int i = 0; i < 2000; ++i) {
    std::mt19937_64 rng = make_sample_rng(0, 0, i);
    const auto d = distortion->draw(rng);
    EXPECT_LE(std::abs(d.brightness_delta), 4.0f);
    EXPECT_GE(d.contrast_alpha, 0.9f);
    EXPECT_LE(d.contrast_alpha, 1.1f);
    EXPECT_GE(d.saturation_scale, 0.8f);
    EXPECT_LE(d.saturation_scale, 1.2f);
    EXPECT_LE(std::abs(d.hue_shift), 2.0f);
  }
}

}  // namespace
}  // namespace olv2
