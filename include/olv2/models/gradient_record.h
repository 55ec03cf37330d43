#pragma once
// A training step's parameter gradients by state-dict name, compared with a reference record.
#include <torch/nn/module.h>

#include <string>
#include <vector>

#include "olv2/util/state_dict.h"

namespace olv2 {

// The gradient of every parameter that has one, under its state-dict name, detached and on
// the CPU: what one training step hands to the optimizer, ready for write_pth.
NamedTensors gradient_record(const torch::nn::Module& module);

// How one parameter's gradient compares with a reference record's.
struct GradientDifference {
  enum class Kind {
    kCompared,         // relative L2 difference, ||ours - reference|| / ||reference||
    kZeroInReference,  // zero in the reference (at most `zero_below`, 1e-6 of its largest
                       // gradient's norm: float32 noise): no relative difference
    kOnlyInOurs,       // the reference has no gradient for it
    kOnlyInReference,  // we have no gradient for it
  };
  std::string name;
  Kind kind = Kind::kCompared;
  double relative = 0.0;
  double reference_norm = 0.0;
  double our_norm = 0.0;
  // The norm at or below which a gradient counts as zero: 1e-6 of the reference's largest.
  double zero_below = 0.0;
  // The reference kept only a summary of this tensor (see compare_gradient_records).
  bool summarized = false;
};

// Compares two records, worst first: compared tensors by falling relative difference, then the
// tensors zero in the reference and those on one side only. The reference may keep a large
// tensor as a summary instead (`<name>@rows`: the L2 norm of each slice along dim 0;
// `<name>@index`, `<name>@sample`: its values at those flat indices); such a tensor's
// difference is the larger of the two summaries' relative differences. A shape that disagrees
// with the reference is an input error naming the tensor.
std::vector<GradientDifference> compare_gradient_records(const NamedTensors& ours,
                                                         const NamedTensors& reference);

// Whether a difference stays within `tolerance`: a compared tensor within it, a tensor zero in
// the reference that is zero here too (within the same floor), or one present on one side only
// with an all-zero gradient there.
bool within_tolerance(const GradientDifference& difference, double tolerance);

// A table, one line a tensor, in the order given: name, relative difference (or what kind of
// entry it is), both norms.
std::string format_gradient_differences(const std::vector<GradientDifference>& differences);

}  // namespace olv2
