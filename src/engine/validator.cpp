#include "olv2/engine/validator.h"

#include <torch/types.h>

#include <chrono>

#include "olv2/data/data_loader.h"
#include "olv2/data/sampler.h"
#include "olv2/engine/python_format.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_writer.h"
#include "olv2/util/logging.h"

namespace olv2 {

EvaluationMetrics validate(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                           const ValidationOptions& options) {
  using Clock = std::chrono::steady_clock;
  const int64_t total = static_cast<int64_t>(dataset.size());
  DataLoaderOptions loader_options;
  loader_options.samples_per_gpu = 1;
  loader_options.workers_per_gpu = options.workers;
  loader_options.pin_memory = options.device.is_cuda();
  SamplerOptions sampler_options;
  sampler_options.dataset_size = total;
  DataLoader loader(dataset, std::make_shared<DistributedSampler>(sampler_options, false),
                    loader_options);
  loader.start_epoch(0);

  model.eval();
  torch::NoGradGuard no_grad;
  std::vector<FramePrediction> predictions;
  predictions.reserve(static_cast<size_t>(total));
  const auto start = Clock::now();
  const int64_t report_every = std::max<int64_t>(1, total / 10);
  while (auto batch = loader.next()) {
    for (FramePrediction& prediction :
         model.predict(batch->to(options.device, options.device.is_cuda()))) {
      prediction.frame.split = dataset.index().split();
      predictions.push_back(std::move(prediction));
    }
    const int64_t done = static_cast<int64_t>(predictions.size());
    if (done % report_every == 0 || done == total) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      const double eta = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
      spdlog::info("val [{}/{}] elapsed {}, eta {}", done, total,
                   python_timedelta(static_cast<int64_t>(elapsed)),
                   python_timedelta(static_cast<int64_t>(eta)));
    }
  }
  write_results_file(options.results_file, predictions, "train_ds");
  const auto ground_truth = load_ground_truth(
      dataset.index().data_root(), dataset.index().collection_file(), dataset.index().split());
  return evaluate(ground_truth, predictions);
}

}  // namespace olv2
