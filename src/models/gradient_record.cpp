#include "olv2/models/gradient_record.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Kind = GradientDifference::Kind;

// A gradient that is mathematically zero comes out of float32 as noise some 1e-9 of the
// record's largest gradient (the first DETR decoder layer's query self-attention, whose values
// are all the same bias); real gradients sit orders of magnitude above this fraction.
constexpr double kZeroFraction = 1e-6;

double norm_of(const at::Tensor& tensor) { return tensor.to(torch::kDouble).norm().item<double>(); }

double relative_difference(const at::Tensor& ours, const at::Tensor& reference) {
  const at::Tensor a = ours.to(torch::kDouble), b = reference.to(torch::kDouble);
  const double denominator = b.norm().item<double>();
  return (a - b).norm().item<double>() / denominator;
}

void require_same_shape(const std::string& name, const at::Tensor& ours,
                        const at::IntArrayRef& expected, const char* what) {
  if (ours.sizes() != expected) {
    throw input_error("gradient `" + name + "`: " + what + " " + c10::str(ours.sizes()) +
                      ", the reference has " + c10::str(expected));
  }
}

GradientDifference compare_whole(const std::string& name, const at::Tensor& ours,
                                 const at::Tensor& reference, double zero_below) {
  require_same_shape(name, ours, reference.sizes(), "shape");
  GradientDifference d{name};
  d.zero_below = zero_below;
  d.reference_norm = norm_of(reference);
  d.our_norm = norm_of(ours);
  if (d.reference_norm <= zero_below) {
    d.kind = Kind::kZeroInReference;
  } else {
    d.relative = relative_difference(ours, reference);
  }
  return d;
}

// The reference's summary of a large tensor: slice norms along dim 0 and a fixed sample.
GradientDifference compare_summary(const std::string& name, const at::Tensor& ours,
                                   const at::Tensor& rows, const at::Tensor& index,
                                   const at::Tensor& sample, double zero_below) {
  if (ours.dim() == 0)
    throw input_error("gradient `" + name + "`: a scalar, summarized in the reference");
  const at::Tensor our_rows = ours.to(torch::kDouble).reshape({ours.size(0), -1}).norm(2, {1});
  require_same_shape(name, our_rows, rows.sizes(), "dim 0 of");
  const at::Tensor flat = ours.reshape({-1});
  const at::Tensor positions = index.to(torch::kLong);
  if (positions.numel() != sample.numel() ||
      (positions.numel() > 0 &&
       (positions.min().item<int64_t>() < 0 || positions.max().item<int64_t>() >= flat.numel()))) {
    throw input_error("gradient `" + name + "`: the reference's sample indices do not fit " +
                      std::to_string(flat.numel()) + " elements");
  }
  GradientDifference d{name};
  d.summarized = true;
  d.zero_below = zero_below;
  d.reference_norm = norm_of(rows);
  d.our_norm = norm_of(ours);
  if (d.reference_norm <= zero_below) {
    d.kind = Kind::kZeroInReference;
    return d;
  }
  d.relative = relative_difference(our_rows, rows);
  if (norm_of(sample) > 0.0) {
    d.relative = std::max(d.relative, relative_difference(flat.index_select(0, positions), sample));
  }
  return d;
}

int order_of(Kind kind) {
  switch (kind) {
    case Kind::kCompared:
      return 0;
    case Kind::kOnlyInReference:
      return 1;
    case Kind::kOnlyInOurs:
      return 2;
    case Kind::kZeroInReference:
      return 3;
  }
  return 4;
}

}  // namespace

NamedTensors gradient_record(const torch::nn::Module& module) {
  NamedTensors record;
  for (const auto& item : module.named_parameters()) {
    const at::Tensor& grad = item.value().grad();
    if (grad.defined()) record.emplace_back(item.key(), grad.detach().to(torch::kCPU).clone());
  }
  return record;
}

std::vector<GradientDifference> compare_gradient_records(const NamedTensors& ours,
                                                         const NamedTensors& reference) {
  std::map<std::string, at::Tensor> by_name(reference.begin(), reference.end());
  double largest = 0.0;
  for (const auto& [key, tensor] : reference) {
    // A summary's slice norms have the norm of the whole tensor.
    const size_t at = key.find('@');
    if (at == std::string::npos || key.compare(at, std::string::npos, "@rows") == 0)
      largest = std::max(largest, norm_of(tensor));
  }
  const double zero_below = kZeroFraction * largest;
  const auto take = [&](const std::string& key) {
    const auto found = by_name.find(key);
    if (found == by_name.end()) return at::Tensor();
    at::Tensor tensor = found->second;
    by_name.erase(found);
    return tensor;
  };
  std::vector<GradientDifference> out;
  for (const auto& [name, grad] : ours) {
    if (const at::Tensor whole = take(name); whole.defined()) {
      out.push_back(compare_whole(name, grad, whole, zero_below));
      continue;
    }
    const at::Tensor rows = take(name + "@rows"), index = take(name + "@index"),
                     sample = take(name + "@sample");
    if (rows.defined() && index.defined() && sample.defined()) {
      out.push_back(compare_summary(name, grad, rows, index, sample, zero_below));
    } else if (rows.defined() || index.defined() || sample.defined()) {
      throw input_error("gradient `" + name +
                        "`: the reference's summary needs `@rows`, "
                        "`@index` and `@sample`");
    } else {
      GradientDifference d{name, Kind::kOnlyInOurs};
      d.our_norm = norm_of(grad);
      out.push_back(d);
    }
  }
  std::set<std::string> only_in_reference;
  for (const auto& entry : by_name) {
    const std::string name = entry.first.substr(0, entry.first.find('@'));
    if (only_in_reference.insert(name).second) {
      GradientDifference d{name, Kind::kOnlyInReference};
      const auto whole = by_name.find(name), rows = by_name.find(name + "@rows");
      if (whole != by_name.end()) d.reference_norm = norm_of(whole->second);
      if (rows != by_name.end()) d.reference_norm = norm_of(rows->second);
      out.push_back(d);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (order_of(a.kind) != order_of(b.kind)) return order_of(a.kind) < order_of(b.kind);
    return a.relative > b.relative;
  });
  return out;
}

bool within_tolerance(const GradientDifference& difference, double tolerance) {
  switch (difference.kind) {
    case Kind::kCompared:
      return difference.relative <= tolerance;
    case Kind::kZeroInReference:
      return difference.our_norm <= difference.zero_below;
    case Kind::kOnlyInOurs:
      return difference.our_norm == 0.0;
    case Kind::kOnlyInReference:
      return difference.reference_norm == 0.0;
  }
  return false;
}

std::string format_gradient_differences(const std::vector<GradientDifference>& differences) {
  size_t width = 9;
  for (const auto& d : differences) width = std::max(width, d.name.size());
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %12s  %12s  %12s\n", static_cast<int>(width), "parameter",
                "relative L2", "|reference|", "|ours|");
  out << line;
  for (const auto& d : differences) {
    char relative[32];
    switch (d.kind) {
      case Kind::kCompared:
        std::snprintf(relative, sizeof relative, "%.3e%s", d.relative, d.summarized ? "*" : "");
        break;
      case Kind::kZeroInReference:
        std::snprintf(relative, sizeof relative, "zero in ref");
        break;
      case Kind::kOnlyInOurs:
        std::snprintf(relative, sizeof relative, "not in ref");
        break;
      case Kind::kOnlyInReference:
        std::snprintf(relative, sizeof relative, "no gradient");
        break;
    }
    std::snprintf(line, sizeof line, "%-*s  %12s  %12.5e  %12.5e\n", static_cast<int>(width),
                  d.name.c_str(), relative, d.reference_norm, d.our_norm);
    out << line;
  }
  return out.str();
}

}  // namespace olv2
