#pragma once
#include <cstdint>

#include "olv2/engine/dist/gradient_sync.h"
#include "olv2/util/collective.h"

namespace olv2 {

// The gradient-sync point of a multi-process run, as DDP does it once per optimizer step:
// gradients flattened into buckets of at most `bucket_cap_mb` (one dtype each), summed over
// the ranks and divided by the world size; the overflow flags of all ranks travel with them,
// so an overflow on one rank skips the step on every rank. A parameter without a gradient on
// this rank contributes zeros (another rank may have one).
class AllReduceGradientSync : public GradientSync {
 public:
  AllReduceGradientSync(Collective& collective, double bucket_cap_mb);
  bool synchronize(const std::vector<at::Tensor>& params, bool local_overflow) override;
  std::string describe() const override;

 private:
  Collective& collective_;
  int64_t bucket_bytes_;
};

}  // namespace olv2
