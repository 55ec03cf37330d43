#pragma once
// The data loader: batches in the sampler's order, built ahead by worker threads, deterministic
// whatever the thread timing.
#include <c10/core/Device.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/sample.h"
#include "olv2/data/sampler.h"

namespace olv2 {

class OpenLaneV2Dataset;

struct DataLoaderOptions {
  int64_t samples_per_gpu = 2;
  int64_t workers_per_gpu = 4;   // 0: load in the calling thread
  int64_t prefetch_batches = 2;  // ready batches held ahead of the consumer, at least workers
  // The CUDA device batches are copied to: batches are then built in pinned host memory of
  // that device, which each pinning thread makes current. None: pageable memory.
  std::optional<c10::Device> pin_for;
  // LibTorch intra-op threads of each worker thread, as torch's DataLoader workers run
  // (torch.set_num_threads(1)): a worker's tensor ops must not start a whole OpenMP team of
  // their own, so that ranks x threads stays within the cores. 0 keeps LibTorch's default.
  int worker_threads = 1;
};

// Produces the sample of dataset index `index` for `epoch`; nullopt skips it (a bad frame
// under skip_bad_frames). Must be thread-safe and depend only on (index, epoch).
// `images_into` is the sample's slice of the batch's image tensor once the loader knows the
// batch's image size (from its second batch on), else undefined: a source may write the
// sample's images there (then collate copies nothing) or ignore it.
using SampleSource = std::function<std::optional<Sample>(int64_t index, int64_t epoch,
                                                         const at::Tensor& images_into)>;
// Names dataset index `index` in error messages (e.g. its frame file).
using SampleNamer = std::function<std::string(int64_t index)>;

// Loads batches of samples_per_gpu in the sampler's order, `workers_per_gpu` threads building
// whole batches ahead of the consumer into a bounded window. The order and content of batches
// never depend on thread timing. A worker's error is re-thrown by next() at the batch it
// belongs to, naming the sample. Destruction or a new epoch stops the workers mid-epoch.
// Workers run with options.worker_threads intra-op threads; the consumer's count is kept.
class DataLoader {
 public:
  DataLoader(SampleSource source, std::shared_ptr<Sampler> sampler, DataLoaderOptions options,
             SampleNamer namer = {});
  // Loads `dataset` (which must outlive the loader); errors name the frame file.
  DataLoader(const OpenLaneV2Dataset& dataset, std::shared_ptr<Sampler> sampler,
             DataLoaderOptions options);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Sets the sampler's epoch and starts loading it at batch position `first_batch` (stopping an
  // unfinished epoch). The batches before `first_batch` are not loaded: a mid-epoch resume
  // continues the same order without decoding what was already trained on.
  void start_epoch(int64_t epoch, int64_t first_batch = 0);
  // The next batch of the epoch, or nullopt at its end. Batches whose samples were all
  // skipped are left out.
  std::optional<Batch> next();

  int64_t batches_per_epoch() const;
  int64_t epoch() const { return epoch_; }
  // Batch positions of the epoch's order consumed so far, skipped batches included.
  int64_t position() const { return next_to_consume_; }

 private:
  struct Slot {
    std::optional<Batch> batch;  // nullopt: every sample skipped
    std::exception_ptr error;
  };

  std::optional<Batch> load_batch(int64_t batch_number) const;
  // A batch tensor for `samples` images of the size the last batch had (undefined before the
  // first): the pipeline writes into its slices and collate copies nothing.
  at::Tensor image_batch_like_the_last(int64_t samples) const;
  void worker_loop();
  void stop_workers();

  SampleSource source_;
  SampleNamer namer_;
  std::shared_ptr<Sampler> sampler_;
  DataLoaderOptions options_;
  int64_t epoch_ = 0;
  std::vector<int64_t> order_;  // this epoch's indices
  int64_t num_batches_ = 0;
  int64_t next_to_consume_ = 0;
  bool started_ = false;
  int consumer_threads_ = 0;  // intra-op threads of the thread that calls next()

  mutable std::mutex mutex_;
  std::condition_variable slot_ready_;  // a worker filled a slot
  std::condition_variable room_;        // the consumer freed room in the window, or stop
  int64_t next_to_claim_ = 0;
  std::map<int64_t, Slot> ready_;
  bool failed_ = false;  // a worker hit an error: finish claimed batches, claim no more
  std::atomic<bool> stopping_{false};  // shutdown: drop work in progress
  std::vector<std::thread> workers_;
  mutable std::vector<int64_t> last_image_sizes_;  // one sample's, under mutex_
};

}  // namespace olv2
