#pragma once
#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <vector>

namespace olv2::test {

// What one training step gave: every loss term and every parameter's gradient (on the CPU).
struct StepResult {
  std::map<std::string, double> losses;
  std::map<std::string, at::Tensor> grads;
};

// One compared quantity: a loss term or a parameter's gradient.
struct Difference {
  std::string name;
  double expected_size;  // |expected loss| or the expected gradient's norm
  double difference;     // |actual - expected| or the norm of the difference
  double relative;       // difference / max(expected_size, the comparison's floor)
};

// A comparison of two steps' losses or gradients, entry by entry.
struct Comparison {
  std::string title;
  std::vector<Difference> entries;
  std::vector<std::string> problems;  // entries missing on one side, gradients not finite

  // The entries whose relative difference exceeds `tolerance`, and the problems.
  std::vector<std::string> failures(double tolerance) const;
  // The title and the `count` largest relative differences, one per line.
  std::string worst(size_t count = 5) const;
};

// Each loss term relative to its size, with `floor` for a term near zero.
Comparison compare_losses(const StepResult& actual, const StepResult& expected,
                          const std::string& title, double floor = 1e-3);

// Each gradient relative to its norm with a floor of `floor_of_largest` times the largest
// expected gradient norm: a gradient many orders below the largest is cancellation noise in
// either side's sums and is held to the absolute error the large ones are allowed. A gradient
// missing on either side or not finite is a problem.
Comparison compare_gradients(const StepResult& actual, const StepResult& expected,
                             const std::string& title, double floor_of_largest = 1e-3);

}  // namespace olv2::test
