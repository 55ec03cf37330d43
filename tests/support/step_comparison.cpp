#include "step_comparison.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace olv2::test {

namespace {

double norm_of(const at::Tensor& tensor) { return tensor.to(at::kDouble).norm().item<double>(); }

std::string format(const char* pattern, double a, double b, double c) {
  char text[160];
  std::snprintf(text, sizeof(text), pattern, a, b, c);
  return text;
}

}  // namespace

std::vector<std::string> Comparison::failures(double tolerance) const {
  std::vector<std::string> found = problems;
  for (const Difference& d : entries) {
    // Written so that a NaN difference fails too.
    if (!(d.relative <= tolerance)) {
      found.push_back(d.name + format(": relative difference %.3e > %.1e (difference %.3e)",
                                      d.relative, tolerance, d.difference));
    }
  }
  return found;
}

std::string Comparison::worst(size_t count) const {
  std::vector<Difference> sorted = entries;
  // NaN first: it is the worst of all.
  std::sort(sorted.begin(), sorted.end(), [](const Difference& a, const Difference& b) {
    if (std::isnan(a.relative) != std::isnan(b.relative)) return std::isnan(a.relative);
    return a.relative > b.relative;
  });
  std::string text = title + ": the worst " + std::to_string(std::min(count, sorted.size())) +
                     " of " + std::to_string(sorted.size()) + "\n";
  for (size_t i = 0; i < sorted.size() && i < count; ++i) {
    const Difference& d = sorted[i];
    text += "  " + d.name +
            format("  relative %.3e (difference %.3e, size %.3e)\n", d.relative, d.difference,
                   d.expected_size);
  }
  for (const std::string& problem : problems) text += "  " + problem + "\n";
  return text;
}

Comparison compare_losses(const StepResult& actual, const StepResult& expected,
                          const std::string& title, double floor) {
  Comparison comparison{title, {}, {}};
  for (const auto& [name, value] : expected.losses) {
    const auto found = actual.losses.find(name);
    if (found == actual.losses.end()) {
      comparison.problems.push_back(name + ": missing");
      continue;
    }
    const double difference = std::abs(found->second - value);
    comparison.entries.push_back(
        {name, std::abs(value), difference, difference / std::max(std::abs(value), floor)});
  }
  for (const auto& [name, value] : actual.losses) {
    if (!expected.losses.count(name)) comparison.problems.push_back(name + ": not expected");
  }
  return comparison;
}

Comparison compare_gradients(const StepResult& actual, const StepResult& expected,
                             const std::string& title, double floor_of_largest) {
  double largest = 0.0;
  for (const auto& [name, grad] : expected.grads) largest = std::max(largest, norm_of(grad));
  char floor_text[96];
  std::snprintf(floor_text, sizeof(floor_text), " (floor %.0e x the largest norm %.3e)",
                floor_of_largest, largest);
  Comparison comparison{title + floor_text, {}, {}};
  if (expected.grads.empty()) comparison.problems.push_back("no expected gradient at all");
  for (const auto& [name, grad] : expected.grads) {
    const auto found = actual.grads.find(name);
    if (found == actual.grads.end()) {
      comparison.problems.push_back(name + ": no gradient");
      continue;
    }
    if (!found->second.isfinite().all().item<bool>()) {
      comparison.problems.push_back(name + ": a gradient that is not finite");
    }
    const double size = norm_of(grad);
    const double difference = norm_of(found->second.to(at::kDouble) - grad.to(at::kDouble));
    comparison.entries.push_back(
        {name, size, difference, difference / std::max(size, floor_of_largest * largest)});
  }
  for (const auto& [name, grad] : actual.grads) {
    if (!expected.grads.count(name)) comparison.problems.push_back(name + ": not expected");
  }
  return comparison;
}

}  // namespace olv2::test
