#include "olv2/assign/linear_sum_assignment.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "olv2/util/error.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

double total_cost(const std::vector<double>& cost, int64_t cols, const Assignment& a) {
  double sum = 0.0;
  for (size_t k = 0; k < a.rows.size(); ++k) sum += cost[a.rows[k] * cols + a.cols[k]];
  return sum;
}

// Exhaustive search over every injective map of the smaller side into the larger one.
struct BruteForce {
  BruteForce(const std::vector<double>& cost, int64_t rows, int64_t cols)
      : cost(cost), rows(rows), cols(cols) {}

  const std::vector<double>& cost;
  int64_t rows, cols;
  double best = std::numeric_limits<double>::infinity();
  std::vector<int64_t> best_partner, partner;
  std::vector<bool> used;

  double at(int64_t small, int64_t large) const {
    return rows <= cols ? cost[small * cols + large] : cost[large * cols + small];
  }
  void search(int64_t small, double sum) {
    const int64_t n_small = std::min(rows, cols);
    const int64_t n_large = std::max(rows, cols);
    if (small == n_small) {
      if (sum < best) {
        best = sum;
        best_partner = partner;
      }
      return;
    }
    for (int64_t large = 0; large < n_large; ++large) {
      if (used[large]) continue;
      used[large] = true;
      partner[small] = large;
      search(small + 1, sum + at(small, large));
      used[large] = false;
    }
  }
  Assignment solve() {
    partner.assign(std::min(rows, cols), -1);
    used.assign(std::max(rows, cols), false);
    search(0, 0.0);
    Assignment a;
    if (rows <= cols) {
      for (int64_t r = 0; r < rows; ++r) {
        a.rows.push_back(r);
        a.cols.push_back(best_partner[r]);
      }
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          if (best_partner[c] == r) {
            a.rows.push_back(r);
            a.cols.push_back(c);
          }
        }
      }
    }
    return a;
  }
};

std::vector<double> random_matrix(std::mt19937_64& rng, int64_t rows, int64_t cols) {
  std::uniform_real_distribution<double> uniform(0.0, 10.0);
  std::vector<double> cost(rows * cols);
  for (double& value : cost) value = uniform(rng);
  return cost;
}

TEST(LinearSumAssignment, SolvesHandComputedSquareCase) {
  // Optimum 1 + 2 + 2 = 5: row 0 -> col 1, row 1 -> col 0, row 2 -> col 2.
  const std::vector<double> cost = {4, 1, 3, 2, 0, 5, 3, 2, 2};
  const Assignment a = linear_sum_assignment(cost, 3, 3);
  EXPECT_EQ(a.rows, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(a.cols, (std::vector<int64_t>{1, 0, 2}));
}

TEST(LinearSumAssignment, MatchesEveryRowOfAWideMatrix) {
  // Row 0 prefers col 2 (cost 1); row 1 is cheapest at col 2 too but col 0 (cost 2) wins overall.
  const std::vector<double> cost = {5, 9, 1, 2, 8, 1.5};
  const Assignment a = linear_sum_assignment(cost, 2, 3);
  EXPECT_EQ(a.rows, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(a.cols, (std::vector<int64_t>{2, 0}));
}

TEST(LinearSumAssignment, MatchesEveryColumnOfATallMatrixWithRowsAscending) {
  // Transpose of the wide case: col 0 -> row 2, col 1 -> row 0.
  const std::vector<double> cost = {5, 2, 9, 8, 1, 1.5};
  const Assignment a = linear_sum_assignment(cost, 3, 2);
  EXPECT_EQ(a.rows, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(a.cols, (std::vector<int64_t>{1, 0}));
}

TEST(LinearSumAssignment, ConstantMatrixGivesTheIdentity) {
  const std::vector<double> cost(4 * 6, 3.0);
  const Assignment a = linear_sum_assignment(cost, 4, 6);
  EXPECT_EQ(a.cols, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(LinearSumAssignment, EmptyMatrixHasNoPairs) {
  EXPECT_TRUE(linear_sum_assignment({}, 0, 5).rows.empty());
  EXPECT_TRUE(linear_sum_assignment({}, 5, 0).cols.empty());
}

TEST(LinearSumAssignment, AcceptsPositiveInfinityWhenAFiniteMatchingExists) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> cost = {inf, 1, 2, inf};
  const Assignment a = linear_sum_assignment(cost, 2, 2);
  EXPECT_EQ(a.cols, (std::vector<int64_t>{1, 0}));
}

TEST(LinearSumAssignment, RejectsNanAndInfeasibleMatrices) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(linear_sum_assignment({1, std::nan("")}, 1, 2), Error);
  EXPECT_THROW(linear_sum_assignment({1, -inf}, 1, 2), Error);
  EXPECT_THROW(linear_sum_assignment({inf, inf, 1, 2}, 2, 2), Error);
  EXPECT_THROW(linear_sum_assignment({1, 2, 3}, 2, 2), Error);
}

TEST(LinearSumAssignment, EqualsBruteForceOnRandomMatrices) {
  std::mt19937_64 rng(7);
  for (int64_t rows = 1; rows <= 7; ++rows) {
    for (int64_t cols = 1; cols <= 7; ++cols) {
      for (int trial = 0; trial < 3; ++trial) {
        const std::vector<double> cost = random_matrix(rng, rows, cols);
        const Assignment got = linear_sum_assignment(cost, rows, cols);
        const Assignment want = BruteForce(cost, rows, cols).solve();
        ASSERT_EQ(got.rows, want.rows) << rows << "x" << cols;
        ASSERT_EQ(got.cols, want.cols) << rows << "x" << cols;
        ASSERT_NEAR(total_cost(cost, cols, got), total_cost(cost, cols, want), 1e-9);
      }
    }
  }
}

TEST(LinearSumAssignment, EqualsBruteForceAtHeadSizes) {
  std::mt19937_64 rng(5);
  for (const auto& [rows, cols] :
       std::vector<std::pair<int64_t, int64_t>>{{50, 4}, {30, 3}, {3, 30}}) {
    const std::vector<double> cost = random_matrix(rng, rows, cols);
    const Assignment got = linear_sum_assignment(cost, rows, cols);
    const Assignment want = BruteForce(cost, rows, cols).solve();
    EXPECT_EQ(got.rows, want.rows) << rows << "x" << cols;
    EXPECT_EQ(got.cols, want.cols) << rows << "x" << cols;
  }
}

// With many exactly equal costs the matching is not unique, but its total must be optimal.
TEST(LinearSumAssignment, IsOptimalOnIntegerCostsWithTies) {
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<int> small(0, 3);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t rows = 1 + trial % 6;
    const int64_t cols = 1 + (trial * 5) % 7;
    std::vector<double> cost(rows * cols);
    for (double& value : cost) value = small(rng);
    const Assignment got = linear_sum_assignment(cost, rows, cols);
    const Assignment want = BruteForce(cost, rows, cols).solve();
    ASSERT_EQ(got.rows.size(), static_cast<size_t>(std::min(rows, cols)));
    EXPECT_EQ(total_cost(cost, cols, got), total_cost(cost, cols, want)) << rows << "x" << cols;
  }
}

// SciPy is the reference the original used; compare with it when the system Python has it.
TEST(LinearSumAssignment, EqualsScipyOnRandomMatrices) {
  if (test::run_command("/usr/bin/python3 -c 'import scipy.optimize'").exit_status != 0) {
    if (test::running_in_ci()) FAIL() << "scipy is not importable by /usr/bin/python3 under CI";
    GTEST_SKIP() << "scipy is not importable by /usr/bin/python3";
  }
  const std::filesystem::path dir = test::scratch_dir("lsa_scipy");
  std::mt19937_64 rng(11);
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{50, 4},  {30, 3},  {4, 50},
                                                           {20, 20}, {37, 11}, {1, 9}};
  for (const auto& [rows, cols] : shapes) {
    const std::vector<double> cost = random_matrix(rng, rows, cols);
    std::ofstream(dir / "cost.txt") << [&] {
      std::ostringstream text;
      text.precision(17);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c)
          text << cost[r * cols + c] << (c + 1 < cols ? " " : "\n");
      }
      return text.str();
    }();
    const std::string script =
        "import numpy as np, scipy.optimize as so; c = np.loadtxt('" + (dir / "cost.txt").string() +
        "', ndmin=2).reshape(" + std::to_string(rows) + ", " + std::to_string(cols) +
        "); r, k = so.linear_sum_assignment(c); print(' '.join(map(str, r)), '|', "
        "' '.join(map(str, k)))";
    const auto result = test::run_command("/usr/bin/python3 -c \"" + script + "\"");
    ASSERT_EQ(result.exit_status, 0) << result.output;
    const Assignment got = linear_sum_assignment(cost, rows, cols);
    std::ostringstream mine;
    for (size_t k = 0; k < got.rows.size(); ++k) mine << (k ? " " : "") << got.rows[k];
    mine << " |";
    for (size_t k = 0; k < got.cols.size(); ++k) mine << " " << got.cols[k];
    std::string expected = result.output;
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == ' '))
      expected.pop_back();
    EXPECT_EQ(mine.str(), expected) << rows << "x" << cols;
  }
}

}  // namespace
}  // namespace olv2
