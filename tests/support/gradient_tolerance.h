#pragma once
#include <filesystem>
#include <set>
#include <string>

#include "olv2/util/state_dict.h"

namespace olv2::test {

// How far (relative L2, per tensor) a gradient may be from the original's golden record.
// PyTorch's LibTorch: 1e-5. Debian's LibTorch 1.13: 5e-5, since it chooses its oneDNN
// convolution and OpenBLAS kernels by the CPU it runs on, and the goldens were written on
// another CPU by the original stack on that same LibTorch: measured 2.6e-5 for a batch of two
// on an AVX-512 VNNI Xeon (within 1e-5 on the CPU the goldens came from). The Baseline's
// records of a CPU without AVX-512 have their own: support/baseline_gradient_records.h.
double gradient_parity_tolerance();

// Expects every gradient of `ours` within `tolerance` of the golden record `reference` (a
// compact record: see models/gradient_record.h), the tensors zero there being exactly
// `zero_in_reference`. Returns how many tensors were compared.
size_t expect_gradient_parity(const NamedTensors& ours, const std::filesystem::path& reference,
                              const std::set<std::string>& zero_in_reference,
                              double tolerance = gradient_parity_tolerance());

}  // namespace olv2::test
