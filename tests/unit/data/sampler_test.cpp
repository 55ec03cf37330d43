// Epoch orders and rank shards of the distributed samplers.
#include "olv2/data/sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <numeric>

#include "olv2/util/error.h"

namespace {

using olv2::SamplerOptions;

// Visits of every index by all ranks together in one epoch.
template <typename MakeSampler>
std::map<int64_t, int> visits(int64_t dataset_size, int64_t world, int64_t epoch, MakeSampler make,
                              std::vector<int64_t>* rank_sizes = nullptr) {
  std::map<int64_t, int> counts;
  for (int64_t rank = 0; rank < world; ++rank) {
    std::unique_ptr<olv2::Sampler> sampler = make(SamplerOptions{dataset_size, rank, world, 5});
    sampler->set_epoch(epoch);
    const std::vector<int64_t> indices = sampler->indices();
    EXPECT_EQ(static_cast<int64_t>(indices.size()), sampler->size());
    if (rank_sizes != nullptr) {
      rank_sizes->push_back(sampler->size());
    }
    for (int64_t index : indices) {
      ++counts[index];
    }
  }
  return counts;
}

// Every index visited at least once, the padding (total - dataset) visiting extra indices only.
void expect_full_coverage(const std::map<int64_t, int>& counts, int64_t dataset_size,
                          int64_t total) {
  ASSERT_EQ(static_cast<int64_t>(counts.size()), dataset_size);
  int64_t visits_total = 0;
  for (const auto& [index, count] : counts) {
    EXPECT_GE(index, 0);
    EXPECT_LT(index, dataset_size);
    EXPECT_GE(count, 1);
    visits_total += count;
  }
  EXPECT_EQ(visits_total, total);
}

}  // namespace

TEST(DistributedGroupSampler, EveryIndexOncePerEpochAcrossWorldSizesOneToThree) {
  for (int64_t world = 1; world <= 3; ++world) {
    for (int64_t samples_per_gpu : {1, 2, 3}) {
      for (int64_t dataset_size : {1, 5, 12, 13, 37}) {
        for (int64_t epoch = 0; epoch < 3; ++epoch) {
          SCOPED_TRACE(testing::Message() << "world " << world << " per gpu " << samples_per_gpu
                                          << " size " << dataset_size << " epoch " << epoch);
          std::vector<int64_t> rank_sizes;
          const auto counts = visits(
              dataset_size, world, epoch,
              [&](SamplerOptions options) {
                return std::make_unique<olv2::DistributedGroupSampler>(options, samples_per_gpu);
              },
              &rank_sizes);
          // Per rank: ceil(N / (spg * world)) * spg, the same for every rank.
          const int64_t per_rank = (dataset_size + samples_per_gpu * world - 1) /
                                   (samples_per_gpu * world) * samples_per_gpu;
          for (int64_t size : rank_sizes) {
            EXPECT_EQ(size, per_rank);
          }
          expect_full_coverage(counts, dataset_size, per_rank * world);
          if (dataset_size % (samples_per_gpu * world) == 0) {
            for (const auto& entry : counts) {
              EXPECT_EQ(entry.second, 1);
            }
          }
        }
      }
    }
  }
}

TEST(DistributedSampler, EveryIndexOncePerEpochAcrossWorldSizesOneToThree) {
  for (int64_t world = 1; world <= 3; ++world) {
    for (bool shuffle : {false, true}) {
      for (int64_t dataset_size : {1, 5, 12, 13}) {
        for (int64_t epoch = 0; epoch < 3; ++epoch) {
          SCOPED_TRACE(testing::Message() << "world " << world << " shuffle " << shuffle << " size "
                                          << dataset_size << " epoch " << epoch);
          const auto counts = visits(dataset_size, world, epoch, [&](SamplerOptions options) {
            return std::make_unique<olv2::DistributedSampler>(options, shuffle);
          });
          expect_full_coverage(counts, dataset_size, (dataset_size + world - 1) / world * world);
        }
      }
    }
  }
}

// mmdet's unshuffled order: 0..N-1 padded from the head, rank r takes every world-th entry.
TEST(DistributedSampler, UnshuffledShardsInterleaveAndPadFromTheHead) {
  const std::vector<std::vector<int64_t>> expected = {{0, 3}, {1, 4}, {2, 0}};
  for (int64_t rank = 0; rank < 3; ++rank) {
    olv2::DistributedSampler sampler(SamplerOptions{5, rank, 3, 0}, false);
    EXPECT_EQ(sampler.indices(), expected[static_cast<size_t>(rank)]);
  }
}

TEST(DistributedGroupSampler, OrderDependsOnSeedAndEpochOnly) {
  olv2::DistributedGroupSampler sampler(SamplerOptions{40, 0, 1, 3}, 2);
  olv2::DistributedGroupSampler twin(SamplerOptions{40, 0, 1, 3}, 2);
  olv2::DistributedGroupSampler other_seed(SamplerOptions{40, 0, 1, 4}, 2);
  sampler.set_epoch(0);
  const auto epoch0 = sampler.indices();
  sampler.set_epoch(1);
  const auto epoch1 = sampler.indices();
  EXPECT_NE(epoch0, epoch1);
  twin.set_epoch(1);
  EXPECT_EQ(twin.indices(), epoch1);
  sampler.set_epoch(0);
  EXPECT_EQ(sampler.indices(), epoch0);
  EXPECT_NE(other_seed.indices(), epoch0);
  std::vector<int64_t> sorted = epoch0;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(40);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
}

TEST(Sampler, RejectsRankOutsideWorld) {
  EXPECT_THROW(olv2::DistributedSampler(SamplerOptions{10, 2, 2, 0}, false), olv2::Error);
  EXPECT_THROW(olv2::DistributedGroupSampler(SamplerOptions{10, 0, 1, 0}, 0), olv2::Error);
}
