#include "olv2/models/ops/counter_dropout.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace olv2 {
namespace {

// The mask of `seed` over a virtual [n, rows, cols] tensor, as 0 / 1 floats.
at::Tensor kept_of(int64_t n, int64_t rows, int64_t cols, double p, uint64_t seed) {
  at::Tensor ones = torch::ones({n, rows, cols});
  counter_dropout_({ones}, {rows, 0}, p, seed);
  return (ones != 0).to(torch::kFloat);
}

// Tolerances: five standard deviations of the estimate, so that a correct mask fails about
// once in 3.5 million runs.
double five_sigma(double variance, int64_t count) {
  return 5.0 * std::sqrt(variance / static_cast<double>(count));
}

TEST(CounterDropout, DropsWithProbabilityPAndScalesTheKeptByOneOverOneMinusP) {
  for (const double p : {0.1, 0.5}) {
    at::Tensor x = torch::full({4, 250, 1000}, 3.0f);
    counter_dropout_({x}, {250, 0}, p, 7);
    const auto kept = x != 0;
    const double dropped = 1.0 - kept.to(torch::kDouble).mean().item<double>();
    EXPECT_NEAR(dropped, p, five_sigma(p * (1 - p), x.numel())) << "p " << p;
    // The kept elements are scaled exactly as torch.dropout scales them.
    const at::Tensor torch_kept = torch::dropout(torch::full({1000}, 3.0f), p, true);
    const float expected = torch_kept.max().item<float>();
    EXPECT_TRUE(torch::all(x.masked_select(kept) == expected).item<bool>()) << "p " << p;
  }
}

TEST(CounterDropout, DropsAreIndependentAlongRowsAndColumns) {
  const double p = 0.1;
  const at::Tensor kept = kept_of(2, 500, 1000, p, 11);
  const double q = 1 - p;
  // Both of two neighbours kept with probability (1 - p)^2, along a row and down a column.
  const at::Tensor right = kept.narrow(2, 0, 999) * kept.narrow(2, 1, 999);
  const at::Tensor below = kept.narrow(1, 0, 499) * kept.narrow(1, 1, 499);
  for (const at::Tensor& pair : {right, below}) {
    EXPECT_NEAR(pair.to(torch::kDouble).mean().item<double>(), q * q,
                five_sigma(q * q * (1 - q * q), pair.numel()));
  }
  // And no structure by column or row: every column's keep rate over 1000 rows is binomial.
  const at::Tensor per_column = kept.flatten(0, 1).mean(0);
  EXPECT_LT((per_column - q).abs().max().item<double>(), 5.5 * std::sqrt(q * p / 1000.0));
}

TEST(CounterDropout, ABlockGetsTheRowsOfTheWholeMask) {
  const at::Tensor whole = kept_of(3, 10, 17, 0.3, 5);
  at::Tensor block = torch::ones({3, 4, 17});
  counter_dropout_({block}, {10, 6}, 0.3, 5);
  EXPECT_TRUE(torch::equal((block != 0).to(torch::kFloat), whole.narrow(1, 6, 4)));
}

TEST(CounterDropout, OneDrawMasksEveryTensorGivenAlike) {
  at::Tensor a = torch::ones({2, 8, 64}), b = torch::full({2, 8, 64}, 2.0f);
  counter_dropout_({a, b}, {8, 0}, 0.4, 9);
  EXPECT_TRUE(torch::equal(a == 0, b == 0));
  EXPECT_TRUE(torch::equal(a == 0, kept_of(2, 8, 64, 0.4, 9) == 0));
}

TEST(CounterDropout, SeedsComeFromTheDefaultGenerator) {
  torch::manual_seed(42);
  const uint64_t first = draw_dropout_seed();
  const uint64_t second = draw_dropout_seed();
  torch::manual_seed(42);
  EXPECT_EQ(draw_dropout_seed(), first);
  EXPECT_NE(first, second);
  EXPECT_FALSE(torch::equal(kept_of(1, 4, 256, 0.5, first), kept_of(1, 4, 256, 0.5, second)));
}

TEST(CounterDropout, RejectsAProbabilityOfOne) {
  at::Tensor x = torch::ones({1, 1, 4});
  EXPECT_THROW(counter_dropout_({x}, {1, 0}, 1.0, 0), std::exception);
}

}  // namespace
}  // namespace olv2
