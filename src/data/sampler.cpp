#include "olv2/data/sampler.h"

#include <numeric>
#include <random>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/splitmix64.h"

namespace olv2 {

namespace {

// The original seeds torch.Generator with seed + epoch; any generator fixed by (seed, epoch)
// serves, as exact order replication is not required (spec §5.3).
std::mt19937_64 epoch_generator(uint64_t seed, int64_t epoch) {
  return std::mt19937_64(splitmix64(splitmix64(seed) ^ static_cast<uint64_t>(epoch)));
}

// Fisher-Yates with a fully specified draw, so orders agree across standard libraries.
std::vector<int64_t> permutation(int64_t size, std::mt19937_64& generator) {
  std::vector<int64_t> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = size - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(generator() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Repeats `order` from its head until it holds `total` entries.
void pad_from_head(std::vector<int64_t>& order, int64_t total) {
  const size_t original = order.size();
  for (size_t i = 0; order.size() < static_cast<size_t>(total) && original > 0; ++i) {
    order.push_back(order[i % original]);
  }
}

void validate(const SamplerOptions& options) {
  if (options.dataset_size < 0 || options.world_size < 1 || options.rank < 0 ||
      options.rank >= options.world_size) {
    throw input_error("sampler: rank " + std::to_string(options.rank) + " of world size " +
                      std::to_string(options.world_size) + " over " +
                      std::to_string(options.dataset_size) +
                      " samples: expected 0 <= rank < world size");
  }
}

}  // namespace

DistributedSampler::DistributedSampler(SamplerOptions options, bool shuffle)
    : options_(options), shuffle_(shuffle) {
  validate(options_);
}

int64_t DistributedSampler::size() const {
  return ceil_div(options_.dataset_size, options_.world_size);
}

std::vector<int64_t> DistributedSampler::indices() const {
  std::vector<int64_t> order;
  if (shuffle_) {
    std::mt19937_64 generator = epoch_generator(options_.seed, epoch());
    order = permutation(options_.dataset_size, generator);
  } else {
    order.resize(static_cast<size_t>(options_.dataset_size));
    std::iota(order.begin(), order.end(), 0);
  }
  pad_from_head(order, size() * options_.world_size);
  std::vector<int64_t> mine;
  for (size_t i = static_cast<size_t>(options_.rank); i < order.size();
       i += static_cast<size_t>(options_.world_size)) {
    mine.push_back(order[i]);
  }
  return mine;
}

DistributedGroupSampler::DistributedGroupSampler(SamplerOptions options, int64_t samples_per_gpu)
    : options_(options), samples_per_gpu_(samples_per_gpu) {
  validate(options_);
  if (samples_per_gpu_ < 1) {
    throw input_error("sampler: samples_per_gpu " + std::to_string(samples_per_gpu_) +
                      ": expected at least 1");
  }
}

int64_t DistributedGroupSampler::size() const {
  return ceil_div(options_.dataset_size, samples_per_gpu_ * options_.world_size) * samples_per_gpu_;
}

std::vector<int64_t> DistributedGroupSampler::indices() const {
  std::mt19937_64 generator = epoch_generator(options_.seed, epoch());
  std::vector<int64_t> order = permutation(options_.dataset_size, generator);
  pad_from_head(order, size() * options_.world_size);
  const auto chunks = static_cast<int64_t>(order.size()) / samples_per_gpu_;
  const std::vector<int64_t> chunk_order = permutation(chunks, generator);
  std::vector<int64_t> mine;
  const int64_t first_chunk = options_.rank * (size() / samples_per_gpu_);
  for (int64_t c = first_chunk; c < first_chunk + size() / samples_per_gpu_; ++c) {
    for (int64_t k = 0; k < samples_per_gpu_; ++k) {
      mine.push_back(order[static_cast<size_t>(chunk_order[c] * samples_per_gpu_ + k)]);
    }
  }
  return mine;
}

}  // namespace olv2
