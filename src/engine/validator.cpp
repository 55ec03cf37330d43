#include "olv2/engine/validator.h"

#include <torch/types.h>

#include <chrono>
#include <set>
#include <sstream>

#include "olv2/data/data_loader.h"
#include "olv2/data/sampler.h"
#include "olv2/engine/logging/python_format.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/evaluation/results_writer.h"
#include "olv2/util/elapsed.h"
#include "olv2/util/fault_injection.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace {

std::vector<FramePrediction> predict_shard(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                                           const PredictionOptions& options, int64_t rank,
                                           int64_t world_size) {
  using Clock = std::chrono::steady_clock;
  DataLoaderOptions loader_options;
  loader_options.samples_per_gpu = 1;
  loader_options.workers_per_gpu = options.workers;
  if (options.device.is_cuda()) loader_options.pin_for = options.device;
  SamplerOptions sampler_options;
  sampler_options.dataset_size = static_cast<int64_t>(dataset.size());
  sampler_options.rank = rank;
  sampler_options.world_size = world_size;
  auto sampler = std::make_shared<DistributedSampler>(sampler_options, false);
  const int64_t total = sampler->size();
  DataLoader loader(dataset, sampler, loader_options);
  loader.start_epoch(0);

  model.eval();
  torch::NoGradGuard no_grad;
  std::optional<AutocastGuard> autocast;
  if (options.autocast) autocast.emplace(options.device.type(), *options.autocast);
  std::vector<FramePrediction> predictions;
  predictions.reserve(static_cast<size_t>(total));
  const auto start = Clock::now();
  const int64_t report_every = std::max<int64_t>(1, total / 10);
  while (auto batch = loader.next()) {
    for (FramePrediction& prediction :
         model.predict(batch->to(options.device, options.device.is_cuda()))) {
      prediction.frame.split = dataset.index().split();
      predictions.push_back(std::move(prediction));
      fault_point("validation");
    }
    const int64_t done = static_cast<int64_t>(predictions.size());
    if (done % report_every == 0 || done == total) {
      const double elapsed = seconds_since(start);
      const double eta = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
      spdlog::info("{} [{}/{}] elapsed {}, eta {}", options.progress_label, done, total,
                   python_timedelta(static_cast<int64_t>(elapsed)),
                   python_timedelta(static_cast<int64_t>(eta)));
    }
  }
  return predictions;
}

// Every rank's predictions on rank 0, each frame once (the sampler pads the last round of
// ranks with frames from the start).
std::vector<FramePrediction> gather_on_rank_zero(Collective& collective,
                                                 const std::vector<FramePrediction>& mine) {
  std::ostringstream text;
  write_results(text, mine);
  const std::vector<std::string> all = collective.all_gather_bytes(text.str());
  std::vector<FramePrediction> gathered;
  if (collective.rank() != 0) return gathered;
  std::set<std::string> seen;
  for (size_t rank = 0; rank < all.size(); ++rank) {
    for (FramePrediction& prediction :
         parse_results(all[rank], "the predictions of rank " + std::to_string(rank))) {
      if (seen.insert(prediction.frame.key()).second) gathered.push_back(std::move(prediction));
    }
  }
  return gathered;
}

}  // namespace

std::optional<std::vector<FramePrediction>> predict_frames(DetectorImpl& model,
                                                           const OpenLaneV2Dataset& dataset,
                                                           const PredictionOptions& options) {
  const int64_t rank = options.collective != nullptr ? options.collective->rank() : 0;
  const int64_t world_size = options.collective != nullptr ? options.collective->world_size() : 1;
  std::vector<FramePrediction> predictions =
      predict_shard(model, dataset, options, rank, world_size);
  if (world_size == 1) return predictions;
  predictions = gather_on_rank_zero(*options.collective, predictions);
  if (rank != 0) return std::nullopt;
  std::vector<FrameId> frames;
  for (const FrameKey& key : dataset.index().keys())
    frames.push_back({key.split, key.segment_id, key.timestamp});
  return align_to_frames(std::move(predictions), frames, "the gathered predictions");
}

std::optional<ValidationResult> validate(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                                         const ValidationOptions& options) {
  std::optional<std::vector<FramePrediction>> predictions =
      predict_frames(model, dataset, options.prediction);
  if (!predictions) return std::nullopt;
  if (!options.results_file.empty()) {
    write_results_file(options.results_file, *predictions, options.metadata);
  }
  const auto ground_truth = load_ground_truth(dataset.index());
  EvaluationMetrics metrics = evaluate(ground_truth, *predictions, options.metric_version);
  return ValidationResult{std::move(metrics), std::move(*predictions)};
}

}  // namespace olv2
