#pragma once
// One training step's matchings recorded and replayed in another: what lets a step on the GPU
// be compared with the same step on the CPU term by term. Each device would otherwise compute
// its own Hungarian matchings, and one match flipped between near-equal costs moves its loss
// terms and gradients by far more than any rounding, which is no bug.
#include <cstddef>
#include <memory>
#include <vector>

#include "olv2/assign/assigner.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/models/detectors/toponet.h"

namespace olv2::test {

// Every head's matchings of one step, in the order the heads asked for them (the same on
// every device: one per decoder layer and sample, the heads in the model's order).
class MatchingLog {
 public:
  void record(const AssignResult& matching);
  // The next recorded matching. An error naming the call unless it was recorded for
  // `num_queries` queries and `num_gts` ground-truth objects, or when none is left: replaying
  // it would give a wrong answer silently.
  AssignResult replay(int64_t num_queries, int64_t num_gts);
  // Replays from the first recorded matching again.
  void rewind() { next_ = 0; }
  size_t size() const { return matchings_.size(); }
  size_t replayed() const { return next_; }
  // The recorded matchings, to alter one.
  std::vector<AssignResult>& matchings() { return matchings_; }

 private:
  std::vector<AssignResult> matchings_;
  size_t next_ = 0;
};

// `real`'s matchings, each recorded into `log`.
class RecordingAssigner : public Assigner {
 public:
  RecordingAssigner(std::shared_ptr<const Assigner> real, std::shared_ptr<MatchingLog> log);
  AssignResult assign(const AssignInputs& inputs) const override;
  at::Tensor cost(const AssignInputs& inputs) const override { return real_->cost(inputs); }

 private:
  std::shared_ptr<const Assigner> real_;
  std::shared_ptr<MatchingLog> log_;
};

// `log`'s matchings in their order, whatever the predictions; the cost stays `real`'s.
class ReplayingAssigner : public Assigner {
 public:
  ReplayingAssigner(std::shared_ptr<const Assigner> real, std::shared_ptr<MatchingLog> log);
  AssignResult assign(const AssignInputs& inputs) const override;
  at::Tensor cost(const AssignInputs& inputs) const override { return real_->cost(inputs); }

 private:
  std::shared_ptr<const Assigner> real_;
  std::shared_ptr<MatchingLog> log_;
};

enum class Matchings { kRecord, kReplay };

// `options` with every assigning head (lanes and traffic elements) recording its matchings
// into `log` or replaying them from it.
BaselineOptions with_matchings(BaselineOptions options, Matchings mode,
                               const std::shared_ptr<MatchingLog>& log);
BaselineLargeOptions with_matchings(BaselineLargeOptions options, Matchings mode,
                                    const std::shared_ptr<MatchingLog>& log);
TopoNetOptions with_matchings(TopoNetOptions options, Matchings mode,
                              const std::shared_ptr<MatchingLog>& log);

}  // namespace olv2::test
