#include "support/replayed_matchings.h"

#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/models/heads/toponet_head.h"

namespace olv2::test {

namespace {

// A copy that shares no tensor with `matching`, so that neither run can alter the other's.
AssignResult deep_copy(const AssignResult& matching) {
  AssignResult copy = matching;
  copy.assigned_gt_inds = matching.assigned_gt_inds.clone();
  copy.pos_inds = matching.pos_inds.clone();
  copy.neg_inds = matching.neg_inds.clone();
  copy.pos_assigned_gt_inds = matching.pos_assigned_gt_inds.clone();
  if (matching.pos_assigned_orders.defined()) {
    copy.pos_assigned_orders = matching.pos_assigned_orders.clone();
  }
  return copy;
}

// A head's assigner options, building its assigner wrapped to record or replay.
class MatchingAssignerOptions : public AssignerOptions {
 public:
  MatchingAssignerOptions(std::shared_ptr<const AssignerOptions> real, Matchings mode,
                          std::shared_ptr<MatchingLog> log)
      : real_(std::move(real)), mode_(mode), log_(std::move(log)) {}

  std::shared_ptr<const Assigner> build() const override {
    if (mode_ == Matchings::kRecord) {
      return std::make_shared<RecordingAssigner>(real_->build(), log_);
    }
    return std::make_shared<ReplayingAssigner>(real_->build(), log_);
  }
  AssignedObjects objects() const override { return real_->objects(); }

 private:
  std::shared_ptr<const AssignerOptions> real_;
  Matchings mode_;
  std::shared_ptr<MatchingLog> log_;
};

std::shared_ptr<const AssignerOptions> wrapped(std::shared_ptr<const AssignerOptions> real,
                                               Matchings mode,
                                               const std::shared_ptr<MatchingLog>& log) {
  return std::make_shared<MatchingAssignerOptions>(std::move(real), mode, log);
}

// Replaces `head` by a copy with its assigner wrapped when it is a `Head`.
template <typename Head>
bool wrap_if(std::shared_ptr<const ObjectHeadOptions>& head, Matchings mode,
             const std::shared_ptr<MatchingLog>& log) {
  const auto* concrete = dynamic_cast<const Head*>(head.get());
  if (concrete == nullptr) return false;
  auto copy = std::make_shared<Head>(*concrete);
  copy->assigner = wrapped(copy->assigner, mode, log);
  head = std::move(copy);
  return true;
}

void wrap_head(std::shared_ptr<const ObjectHeadOptions>& head, Matchings mode,
               const std::shared_ptr<MatchingLog>& log) {
  if (wrap_if<CustomDetrHeadOptions>(head, mode, log) ||
      wrap_if<TeDeformableDetrHeadOptions>(head, mode, log) ||
      wrap_if<LcDeformableDetrHeadOptions>(head, mode, log) ||
      wrap_if<TopoNetHeadOptions>(head, mode, log)) {
    return;
  }
  throw std::logic_error(std::string("with_matchings: an object head options type it does not ") +
                         "know (" + typeid(*head).name() + "); add it to " + __FILE__);
}

}  // namespace

void MatchingLog::record(const AssignResult& matching) {
  matchings_.push_back(deep_copy(matching));
}

AssignResult MatchingLog::replay(int64_t num_queries, int64_t num_gts) {
  const std::string call =
      "replayed matching " + std::to_string(next_ + 1) + " of " + std::to_string(matchings_.size());
  if (next_ >= matchings_.size()) {
    throw std::runtime_error(call + ": asked for more matchings than the recording step made");
  }
  const AssignResult& recorded = matchings_[next_];
  const int64_t recorded_queries = recorded.assigned_gt_inds.size(0);
  if (recorded_queries != num_queries || recorded.num_gts != num_gts) {
    throw std::runtime_error(call + ": recorded for " + std::to_string(recorded_queries) +
                             " queries and " + std::to_string(recorded.num_gts) +
                             " ground-truth objects, asked for " + std::to_string(num_queries) +
                             " and " + std::to_string(num_gts));
  }
  ++next_;
  return deep_copy(recorded);
}

RecordingAssigner::RecordingAssigner(std::shared_ptr<const Assigner> real,
                                     std::shared_ptr<MatchingLog> log)
    : real_(std::move(real)), log_(std::move(log)) {}

AssignResult RecordingAssigner::assign(const AssignInputs& inputs) const {
  AssignResult matching = real_->assign(inputs);
  log_->record(matching);
  return matching;
}

ReplayingAssigner::ReplayingAssigner(std::shared_ptr<const Assigner> real,
                                     std::shared_ptr<MatchingLog> log)
    : real_(std::move(real)), log_(std::move(log)) {}

AssignResult ReplayingAssigner::assign(const AssignInputs& inputs) const {
  return log_->replay(inputs.predictions.size(0), inputs.targets.size(0));
}

BaselineOptions with_matchings(BaselineOptions options, Matchings mode,
                               const std::shared_ptr<MatchingLog>& log) {
  wrap_head(options.lc_head, mode, log);
  wrap_head(options.te_head, mode, log);
  return options;
}

BaselineLargeOptions with_matchings(BaselineLargeOptions options, Matchings mode,
                                    const std::shared_ptr<MatchingLog>& log) {
  wrap_head(options.pts_bbox_head, mode, log);
  wrap_head(options.bbox_head, mode, log);
  return options;
}

TopoNetOptions with_matchings(TopoNetOptions options, Matchings mode,
                              const std::shared_ptr<MatchingLog>& log) {
  wrap_head(options.lane_head, mode, log);
  wrap_head(options.bbox_head, mode, log);
  return options;
}

}  // namespace olv2::test
