#include "olv2/data/data_loader.h"

#include <ATen/ATen.h>
#include <ATen/Config.h>
#include <ATen/Parallel.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <utility>

#include "olv2/data/dataset.h"
#include "olv2/util/error.h"

namespace olv2 {

namespace {

// Only with OpenMP (Debian's and PyTorch's Linux builds) is the intra-op thread count a
// setting of each thread; the other backends share one pool.
constexpr bool kPerThreadCounts = AT_PARALLEL_OPENMP;

// Re-throws the current exception with `name` in front unless the message already names it.
[[noreturn]] void rethrow_naming(const std::string& name) {
  try {
    throw;
  } catch (const Error& error) {
    const std::string message = error.what();
    if (message.find(name) != std::string::npos) {
      throw;
    }
    throw Error(name + ": " + message, error.status());
  } catch (const std::exception& error) {
    throw runtime_error(name + ": " + error.what());
  }
}

}  // namespace

DataLoader::DataLoader(SampleSource source, std::shared_ptr<Sampler> sampler,
                       DataLoaderOptions options, SampleNamer namer)
    : source_(std::move(source)),
      namer_(std::move(namer)),
      sampler_(std::move(sampler)),
      options_(options) {
  if (options_.samples_per_gpu < 1 || options_.workers_per_gpu < 0) {
    throw input_error("data loader: samples_per_gpu " + std::to_string(options_.samples_per_gpu) +
                      ", workers_per_gpu " + std::to_string(options_.workers_per_gpu) +
                      ": expected samples_per_gpu >= 1 and workers_per_gpu >= 0");
  }
  if (options_.worker_threads < 0) {
    throw input_error("data loader: worker_threads " + std::to_string(options_.worker_threads) +
                      ": expected 0 (LibTorch's default) or more");
  }
  if (!source_ || !sampler_) {
    throw runtime_error("data loader: no sample source or sampler given");
  }
}

DataLoader::DataLoader(const OpenLaneV2Dataset& dataset, std::shared_ptr<Sampler> sampler,
                       DataLoaderOptions options)
    : DataLoader(
          [&dataset](int64_t index, int64_t epoch, const at::Tensor& images_into) {
            return dataset.try_get(static_cast<size_t>(index), epoch, images_into);
          },
          std::move(sampler), options,
          [&dataset](int64_t index) {
            return "frame " + dataset.index().info_path(static_cast<size_t>(index)).string();
          }) {}

DataLoader::~DataLoader() { stop_workers(); }

int64_t DataLoader::batches_per_epoch() const {
  return (sampler_->size() + options_.samples_per_gpu - 1) / options_.samples_per_gpu;
}

void DataLoader::start_epoch(int64_t epoch, int64_t first_batch) {
  stop_workers();
  epoch_ = epoch;
  started_ = true;
  sampler_->set_epoch(epoch);
  order_ = sampler_->indices();
  const auto samples = static_cast<int64_t>(order_.size());
  num_batches_ = (samples + options_.samples_per_gpu - 1) / options_.samples_per_gpu;
  if (first_batch < 0 || first_batch > num_batches_) {
    throw input_error("data loader: cannot start epoch " + std::to_string(epoch) + " at batch " +
                      std::to_string(first_batch) + ": it has " + std::to_string(num_batches_) +
                      " batches");
  }
  next_to_consume_ = first_batch;
  next_to_claim_ = first_batch;
  ready_.clear();
  failed_ = false;
  stopping_ = false;
  // ATen gives a thread its count lazily, from the latest at::set_num_threads of any thread,
  // which the workers are about to call: settle this thread's own count first.
  consumer_threads_ = at::get_num_threads();
  const int64_t threads = std::min(options_.workers_per_gpu, num_batches_ - first_batch);
  for (int64_t i = 0; i < threads; ++i) {
    workers_.emplace_back([this] { worker_loop(); });
  }
}

std::optional<Batch> DataLoader::next() {
  if (!started_) {
    start_epoch(epoch_);
  }
  while (next_to_consume_ < num_batches_) {
    const int64_t number = next_to_consume_;
    Slot slot;
    if (workers_.empty()) {
      ++next_to_consume_;
      try {
        slot.batch = load_batch(number);
      } catch (...) {
        slot.error = std::current_exception();
      }
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      slot_ready_.wait(lock, [&] { return ready_.count(number) > 0; });
      slot = std::move(ready_[number]);
      ready_.erase(number);
      ++next_to_consume_;
      lock.unlock();
      room_.notify_all();
    }
    if (slot.error) {
      stop_workers();
      next_to_consume_ = num_batches_;
      std::rethrow_exception(slot.error);
    }
    if (slot.batch) {
      return std::move(slot.batch);
    }
  }
  return std::nullopt;
}

std::optional<Batch> DataLoader::load_batch(int64_t batch_number) const {
  const auto begin = static_cast<size_t>(batch_number * options_.samples_per_gpu);
  const size_t end = std::min(order_.size(), begin + static_cast<size_t>(options_.samples_per_gpu));
  const at::Tensor images = image_batch_like_the_last(static_cast<int64_t>(end - begin));
  std::vector<Sample> samples;
  for (size_t position = begin; position < end; ++position) {
    if (stopping_) {
      return std::nullopt;
    }
    const int64_t index = order_[position];
    try {
      std::optional<Sample> sample =
          source_(index, epoch_,
                  images.defined() ? images[static_cast<int64_t>(position - begin)] : at::Tensor());
      if (sample) {
        samples.push_back(std::move(*sample));
      }
    } catch (...) {
      rethrow_naming(namer_ ? namer_(index) : "sample " + std::to_string(index));
    }
  }
  if (samples.empty()) {
    return std::nullopt;
  }
  Batch batch = collate(std::move(samples));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_image_sizes_.assign(batch.images.sizes().begin() + 1, batch.images.sizes().end());
  }
  if (options_.pin_for) {
    const c10::DeviceGuard current(*options_.pin_for);
    batch = batch.pin_memory();
  }
  return batch;
}

at::Tensor DataLoader::image_batch_like_the_last(int64_t samples) const {
  std::vector<int64_t> sizes{samples};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_image_sizes_.empty()) return {};
    sizes.insert(sizes.end(), last_image_sizes_.begin(), last_image_sizes_.end());
  }
  return at::empty(sizes, at::kFloat);
}

void DataLoader::worker_loop() {
  if (kPerThreadCounts && options_.worker_threads > 0) {
    at::set_num_threads(options_.worker_threads);
  }
  const int64_t window = std::max(options_.prefetch_batches, options_.workers_per_gpu);
  for (;;) {
    int64_t number = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      room_.wait(lock, [&] {
        return stopping_ || failed_ || next_to_claim_ >= num_batches_ ||
               next_to_claim_ < next_to_consume_ + window;
      });
      if (stopping_ || failed_ || next_to_claim_ >= num_batches_) {
        return;
      }
      number = next_to_claim_++;
    }
    Slot slot;
    try {
      slot.batch = load_batch(number);
    } catch (...) {
      slot.error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (slot.error) {
        failed_ = true;
      }
      ready_[number] = std::move(slot);
    }
    slot_ready_.notify_all();
  }
}

void DataLoader::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  room_.notify_all();
  for (std::thread& worker : workers_) {
    worker.join();
  }
  // The workers' setting is also the default of threads started later: give back the
  // consumer's (which leaves the consumer's own count as it is).
  if (kPerThreadCounts && !workers_.empty() && options_.worker_threads > 0) {
    at::set_num_threads(consumer_threads_);
  }
  workers_.clear();
}

}  // namespace olv2
