// The threaded loader: order and content independent of threads, errors, shutdown.
#include "olv2/data/data_loader.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "olv2/config/config_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

constexpr int64_t kCameras = 2;

// A sample whose contents follow from (index, epoch) and which takes a random while to build,
// so that threads finish out of order.
olv2::Sample fake_sample(int64_t index, int64_t epoch, const at::Tensor& /*images_into*/ = {}) {
  std::mt19937_64 timing(std::random_device{}());
  std::this_thread::sleep_for(std::chrono::microseconds(timing() % 3000));
  olv2::Sample sample;
  sample.index = index;
  sample.img = torch::full({kCameras, 3, 4, 5}, static_cast<float>(index * 100 + epoch));
  sample.lidar2img = torch::eye(4, torch::kFloat64).repeat({kCameras, 1, 1});
  sample.can_bus = torch::full({18}, static_cast<double>(index), torch::kFloat64);
  sample.meta.sample_idx = std::to_string(index);
  return sample;
}

std::shared_ptr<olv2::Sampler> group_sampler(int64_t size) {
  return std::make_shared<olv2::DistributedGroupSampler>(olv2::SamplerOptions{size, 0, 1, 11}, 2);
}

olv2::DataLoaderOptions loader_options(int64_t workers) {
  olv2::DataLoaderOptions options;
  options.samples_per_gpu = 2;
  options.workers_per_gpu = workers;
  return options;
}

std::vector<olv2::Batch> whole_epoch(olv2::DataLoader& loader, int64_t epoch) {
  loader.start_epoch(epoch);
  std::vector<olv2::Batch> batches;
  while (auto batch = loader.next()) {
    batches.push_back(std::move(*batch));
  }
  return batches;
}

void expect_same_batches(const std::vector<olv2::Batch>& a, const std::vector<olv2::Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].indices, b[i].indices) << "batch " << i;
    EXPECT_TRUE(torch::equal(a[i].images, b[i].images)) << "batch " << i;
    EXPECT_TRUE(torch::equal(a[i].lidar2img, b[i].lidar2img)) << "batch " << i;
    ASSERT_EQ(a[i].gt_lc.size(), b[i].gt_lc.size());
    for (size_t s = 0; s < a[i].gt_lc.size(); ++s) {
      EXPECT_TRUE(torch::equal(a[i].gt_lc[s], b[i].gt_lc[s]));
      EXPECT_TRUE(torch::equal(a[i].gt_te[s], b[i].gt_te[s]));
    }
  }
}

}  // namespace

TEST(DataLoader, BatchesFollowTheSamplerWithOneOrThreeThreads) {
  olv2::DataLoader single(fake_sample, group_sampler(23), loader_options(1));
  olv2::DataLoader threaded(fake_sample, group_sampler(23), loader_options(3));
  for (int64_t epoch : {0, 1}) {
    const auto expected_order = [&] {
      auto sampler = group_sampler(23);
      sampler->set_epoch(epoch);
      return sampler->indices();
    }();
    const auto one = whole_epoch(single, epoch);
    const auto three = whole_epoch(threaded, epoch);
    ASSERT_EQ(one.size(), 12u);  // ceil(23 / 2) batches, the last one padded
    std::vector<int64_t> seen;
    for (const auto& batch : one) {
      EXPECT_EQ(batch.images.size(0), 2);
      seen.insert(seen.end(), batch.indices.begin(), batch.indices.end());
      EXPECT_EQ(batch.images[1][0][0][0][0].item<float>(),
                static_cast<float>(batch.indices[1] * 100 + epoch));
    }
    EXPECT_EQ(seen, expected_order);
    expect_same_batches(one, three);
  }
}

TEST(DataLoader, NoWorkersLoadsInTheCallingThread) {
  olv2::DataLoader inline_loader(fake_sample, group_sampler(9), loader_options(0));
  olv2::DataLoader threaded(fake_sample, group_sampler(9), loader_options(2));
  expect_same_batches(whole_epoch(inline_loader, 3), whole_epoch(threaded, 3));
}

TEST(DataLoader, SkippedSamplesShrinkTheirBatch) {
  auto source = [](int64_t index, int64_t epoch, const at::Tensor&) -> std::optional<olv2::Sample> {
    if (index % 3 == 0) {
      return std::nullopt;
    }
    return fake_sample(index, epoch);
  };
  olv2::DataLoader loader(source, group_sampler(12), loader_options(2));
  int64_t samples = 0;
  for (const auto& batch : whole_epoch(loader, 0)) {
    samples += batch.size();
    for (int64_t index : batch.indices) {
      EXPECT_NE(index % 3, 0);
    }
  }
  EXPECT_EQ(samples, 8);
}

TEST(DataLoader, WorkerErrorIsRethrownAtItsBatchNamingTheSample) {
  auto sampler = std::make_shared<olv2::DistributedSampler>(olv2::SamplerOptions{10, 0, 1, 0},
                                                            /*shuffle=*/false);
  auto source = [](int64_t index, int64_t epoch, const at::Tensor&) -> std::optional<olv2::Sample> {
    if (index == 5) {
      throw olv2::input_error("image x.jpg: corrupt JPEG");
    }
    return fake_sample(index, epoch);
  };
  olv2::DataLoader loader(source, sampler, loader_options(3),
                          [](int64_t index) { return "frame number " + std::to_string(index); });
  loader.start_epoch(0);
  for (int batch = 0; batch < 2; ++batch) {
    ASSERT_TRUE(loader.next().has_value());  // indices 0..3 load fine
  }
  try {
    loader.next();
    FAIL() << "expected the error of sample 5";
  } catch (const olv2::Error& error) {
    EXPECT_EQ(error.status(), olv2::ExitStatus::kBadInput);
    EXPECT_NE(std::string(error.what()).find("frame number 5: image x.jpg: corrupt JPEG"),
              std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(loader.next().has_value());
}

TEST(DataLoader, DestroyingMidEpochStopsPromptly) {
  std::atomic<int> loaded{0};
  auto slow = [&loaded](int64_t index, int64_t epoch,
                        const at::Tensor&) -> std::optional<olv2::Sample> {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ++loaded;
    return fake_sample(index, epoch);
  };
  const auto start = std::chrono::steady_clock::now();
  {
    olv2::DataLoader loader(slow, group_sampler(400), loader_options(3));
    loader.start_epoch(0);
    ASSERT_TRUE(loader.next().has_value());
    loader.start_epoch(1);  // abandons epoch 0 mid-way
    ASSERT_TRUE(loader.next().has_value());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The bounded window keeps the workers from running through the epoch.
  EXPECT_LT(loaded.load(), 40);
  EXPECT_LT(seconds, 5.0);
}

// The intra-op thread counts the loader's samples were built with, and the counts of the
// consuming thread after the epoch and of a thread started after the loader.
struct ThreadCounts {
  std::set<int> workers;
  int consumer = 0;
  int started_later = 0;
};

// Runs one epoch from a fresh consuming thread (one ATen has not given a count yet) that asks
// for `consumer_threads`.
ThreadCounts thread_counts(const olv2::DataLoaderOptions& options, int consumer_threads) {
  ThreadCounts counts;
  std::mutex mutex;
  const olv2::SampleSource source = [&](int64_t index, int64_t epoch, const at::Tensor&) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      counts.workers.insert(at::get_num_threads());
    }
    return std::optional<olv2::Sample>(fake_sample(index, epoch));
  };
  const int caller_threads = at::get_num_threads();
  std::thread consumer([&] {
    at::set_num_threads(consumer_threads);
    {
      olv2::DataLoader loader(source, group_sampler(8), options);
      whole_epoch(loader, 0);
    }
    counts.consumer = at::get_num_threads();
  });
  consumer.join();
  std::thread([&] { counts.started_later = at::get_num_threads(); }).join();
  at::set_num_threads(caller_threads);  // the process-wide default other tests start from
  return counts;
}

TEST(DataLoader, WorkersBuildSamplesOnOneIntraOpThreadByDefault) {
  const ThreadCounts counts = thread_counts(loader_options(2), 3);
  EXPECT_EQ(counts.workers, std::set<int>{1});
  EXPECT_EQ(counts.consumer, 3);
  EXPECT_EQ(counts.started_later, 3);
}

TEST(DataLoader, WorkerThreadCountIsAnOption) {
  olv2::DataLoaderOptions options = loader_options(2);
  options.worker_threads = 2;
  const ThreadCounts counts = thread_counts(options, 3);
  EXPECT_EQ(counts.workers, std::set<int>{2});
  EXPECT_EQ(counts.consumer, 3);
}

TEST(DataLoader, NegativeWorkerThreadCountIsAnInputError) {
  olv2::DataLoaderOptions options = loader_options(2);
  options.worker_threads = -1;
  EXPECT_THROW(olv2::DataLoader(fake_sample, group_sampler(8), options), olv2::Error);
}

// The real train pipeline (with photometric distortion) on generated frames: identical
// batches with 1 and 3 threads, because every draw comes from (seed, epoch, index).
TEST(DataLoader, TrainPipelineOnSyntheticFramesIsIdenticalWithOneOrThreeThreads) {
  const fs::path root = olv2::test::scratch_dir("loader_synthetic");
  olv2::synthetic::SyntheticDataOptions data;
  data.out = root;
  data.frames = 6;
  data.val_frames = 0;
  data.image_scale = 0.0625;
  const auto summary = olv2::synthetic::make_synthetic_data(data);
  const olv2::ConfigNode config =
      olv2::load_config_file(olv2::test::source_dir() / "configs" / "baseline.yaml");
  const olv2::Pipeline pipeline =
      olv2::build_pipeline(config.at("data").at("train").at("pipeline"));
  const olv2::OpenLaneV2Dataset dataset(
      olv2::FrameIndex(root, summary.collection_file, "train"), pipeline,
      olv2::DatasetOptions{/*seed=*/3, /*skip_bad_frames=*/false});
  olv2::DataLoader single(dataset, group_sampler(6), loader_options(1));
  olv2::DataLoader threaded(dataset, group_sampler(6), loader_options(3));
  const auto one = whole_epoch(single, 1);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_TRUE(one[0].has_gt());
  EXPECT_EQ(one[0].images.dim(), 5);
  expect_same_batches(one, whole_epoch(threaded, 1));
  // From the second batch on the pipeline writes into the batch tensor: the same images as
  // collating samples built one by one.
  for (const olv2::Batch& batch : one) {
    std::vector<olv2::Sample> samples;
    for (const int64_t index : batch.indices) {
      samples.push_back(dataset.get(static_cast<size_t>(index), 1));
    }
    EXPECT_TRUE(torch::equal(olv2::collate(std::move(samples)).images, batch.images));
  }
}
