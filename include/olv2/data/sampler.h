#pragma once
// The samplers of mmdet: which dataset indices each rank visits in an epoch, fixed by the seed.
#include <cstdint>
#include <vector>

namespace olv2 {

struct SamplerOptions {
  int64_t dataset_size = 0;
  int64_t rank = 0;
  int64_t world_size = 1;
  uint64_t seed = 0;  // the order of epoch e derives from (seed, e) only
};

// Which dataset indices one rank visits in an epoch, as the original mmdet samplers decide.
// Every rank builds the same padded epoch order and takes its own share, so that across ranks
// every index appears at least once per epoch and every rank gets the same count.
class Sampler {
 public:
  virtual ~Sampler() = default;
  // Chooses the epoch whose order indices() returns (mmdet's set_epoch).
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  // This rank's dataset indices for the current epoch, in visiting order.
  virtual std::vector<int64_t> indices() const = 0;
  // Indices per rank per epoch (the same for every epoch and rank).
  virtual int64_t size() const = 0;

 private:
  int64_t epoch_ = 0;
};

// mmdet's DistributedSampler: optionally a permutation from (seed, epoch), padded to a multiple
// of the world size by repeating it from its head; rank r takes positions r, r + world, ...
// Used unshuffled for validation and testing.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(SamplerOptions options, bool shuffle);
  std::vector<int64_t> indices() const override;
  int64_t size() const override;

 private:
  SamplerOptions options_;
  bool shuffle_;
};

// mmdet's DistributedGroupSampler, the original's training sampler. Samples are grouped by
// aspect-ratio flag; every OpenLane-V2 sample has the same flag, so there is one group: a
// permutation from (seed, epoch), padded from its head to a multiple of samples_per_gpu x world,
// cut into chunks of samples_per_gpu whose order is permuted again; rank r takes the r-th
// contiguous slice. Each batch of a rank thus holds consecutive chunk members.
class DistributedGroupSampler : public Sampler {
 public:
  DistributedGroupSampler(SamplerOptions options, int64_t samples_per_gpu);
  std::vector<int64_t> indices() const override;
  int64_t size() const override;

 private:
  SamplerOptions options_;
  int64_t samples_per_gpu_;
};

}  // namespace olv2
