#include "olv2/engine/distributed/zero_optimizer.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <sstream>

#include "olv2/engine/checkpoint/optimizer_state.h"
#include "olv2/util/compat.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace {

int64_t bytes_of(const at::Tensor& tensor) {
  return tensor.defined() ? tensor.numel() * static_cast<int64_t>(tensor.element_size()) : 0;
}

// One parameter's state, named as the optimizer type names it, or nothing before its first step.
std::optional<ParamStateEntries> entries_of(const OptimizerOptions& options,
                                            const torch::optim::Optimizer& optimizer,
                                            const at::Tensor& param) {
  const auto found = optimizer.state().find(compat::optimizer_state_key(param));
  if (found == optimizer.state().end()) return std::nullopt;
  return options.state_entries(*found->second);
}

void set_entries(const OptimizerOptions& options, torch::optim::Optimizer& optimizer,
                 const at::Tensor& param, const ParamStateEntries& entries,
                 const std::string& what) {
  std::unique_ptr<torch::optim::OptimizerParamState> state = options.param_state(entries, what);
  if (state) optimizer.state()[compat::optimizer_state_key(param)] = std::move(state);
}

}  // namespace

ZeroOptimizer::ZeroOptimizer(TrainableParams trainable, std::unique_ptr<LossScaler> scaler,
                             int64_t stage, Collective& collective, std::vector<at::Tensor> params,
                             std::vector<int64_t> group_of, std::vector<ParamGroup> groups,
                             std::shared_ptr<const OptimizerOptions> optimizer,
                             double bucket_cap_mb, bool overlap)
    : TrainingOptimizer(std::move(trainable), std::move(scaler)),
      stage_(stage),
      collective_(collective),
      registered_(std::move(params)),
      groups_(std::move(groups)),
      optimizer_options_(std::move(optimizer)),
      bucket_bytes_(bucket_cap_bytes(bucket_cap_mb)),
      overlap_(overlap) {
  if (stage_ != 1 && stage_ != 2) {
    throw input_error("zero_optimization.stage " + std::to_string(stage_) +
                      ": ZeRO stages 1 and 2 are supported (stage 3 would shard the parameters "
                      "themselves)");
  }
  const int64_t world = collective_.world_size();
  const int64_t rank = collective_.rank();
  buckets_ = plan_gradient_buckets(registered_, group_of, bucket_bytes_, world);
  std::vector<ParamGroup> part_groups = groups_;
  for (ParamGroup& group : part_groups) {
    group.params.clear();
    group.names.clear();
  }
  for (const GradientBucket& bucket : buckets_) {
    const at::Tensor& first = registered_[bucket.params.front()];
    parts_.push_back(at::zeros({bucket.part_numel(world)}, first.options()));
    ParamGroup& group = part_groups[static_cast<size_t>(bucket.group)];
    group.params.push_back(parts_.back());
    group.names.push_back("bucket part " + std::to_string(parts_.size() - 1) + " of rank " +
                          std::to_string(rank));
  }
  // A group without a bucket (no parameter of it) keeps an empty tensor, so that the group
  // count and the LR schedule's indices stay those of the unsharded optimizer.
  for (ParamGroup& group : part_groups) {
    if (group.params.empty()) group.params.push_back(at::zeros({0}, registered_.front().options()));
  }
  parts_optimizer_ = optimizer_options_->build(part_groups);
  if (stage_ == 1) {
    all_reduce_ =
        std::make_unique<AllReduceGradientSync>(collective_, registered_, bucket_cap_mb, overlap_);
    // Its buckets ignore the param groups; the parts' do not. Both cover the same gradients.
  } else {
    flat_.resize(buckets_.size());
    pending_.resize(buckets_.size());
    readiness_ = std::make_unique<BucketReadiness>(
        registered_, buckets_, [this](size_t bucket) { launch_reduce_scatter(bucket); });
  }
}

ZeroOptimizer::~ZeroOptimizer() = default;

void ZeroOptimizer::before_backward(const at::Tensor& loss, bool last) {
  if (all_reduce_) {
    all_reduce_->before_backward(loss, last);
  } else if (overlap_ && last) {
    readiness_->arm(loss);
  }
}

void ZeroOptimizer::launch_reduce_scatter(size_t bucket) {
  at::NoGradGuard no_grad;
  const GradientBucket& layout = buckets_[bucket];
  flat_[bucket] = flatten_bucket_gradients(layout, registered_);
  for (size_t k : layout.params) registered_[k].mutable_grad() = at::Tensor();
  parts_[bucket].mutable_grad() = at::empty_like(parts_[bucket]);
  pending_[bucket] = collective_.start_reduce_scatter_sum(flat_[bucket], parts_[bucket].grad());
}

SyncedGradients ZeroOptimizer::finish_synchronization() {
  if (all_reduce_) return all_reduce_->finish(params().tensors);
  at::NoGradGuard no_grad;
  readiness_->launch_remaining();
  const double inverse_world = 1.0 / static_cast<double>(collective_.world_size());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    pending_[b]->wait();
    pending_[b].reset();
    flat_[b] = at::Tensor();
    parts_[b].mutable_grad().mul_(inverse_world);
  }
  SyncedGradients synced;
  synced.holders = parts_;
  synced.parts_over = &collective_;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    for (const PartSlice& slice :
         part_slices(buckets_[b], registered_, collective_.rank(), collective_.world_size())) {
      synced.pieces.push_back(parts_[b].grad().narrow(0, slice.part_offset, slice.count));
    }
  }
  return synced;
}

void ZeroOptimizer::update() {
  at::NoGradGuard no_grad;
  const int64_t world = collective_.world_size();
  const int64_t rank = collective_.rank();
  // The parameters stay the truth (a load or broadcast changes them); the parts take their
  // values, and under stage 1 their gradients, before each update.
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const GradientBucket& bucket = buckets_[b];
    at::Tensor& part = parts_[b];
    part.zero_();
    if (stage_ == 1) part.mutable_grad() = at::zeros_like(part);
    for (const PartSlice& slice : part_slices(bucket, registered_, rank, world)) {
      const at::Tensor& param = registered_[bucket.params[slice.bucket_param]];
      part.narrow(0, slice.part_offset, slice.count)
          .copy_(param.detach().reshape({-1}).narrow(0, slice.param_offset, slice.count));
      if (stage_ == 1) {
        part.mutable_grad()
            .narrow(0, slice.part_offset, slice.count)
            .copy_(param.grad().reshape({-1}).narrow(0, slice.param_offset, slice.count));
      }
    }
  }
  parts_optimizer_->step();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const GradientBucket& bucket = buckets_[b];
    at::Tensor gathered = at::empty({bucket.padded_numel}, parts_[b].options());
    collective_.all_gather(parts_[b], gathered);
    for (size_t i = 0; i < bucket.params.size(); ++i) {
      at::Tensor param = registered_[bucket.params[i]].detach();
      param.copy_(gathered.narrow(0, bucket.offsets[i], param.numel()).view_as(param));
    }
  }
}

void ZeroOptimizer::zero_grad() {
  for (const at::Tensor& param : registered_) param.mutable_grad() = at::Tensor();
  for (const at::Tensor& part : parts_) part.mutable_grad() = at::Tensor();
}

std::unique_ptr<torch::optim::Optimizer> ZeroOptimizer::whole_optimizer() const {
  std::unique_ptr<torch::optim::Optimizer> whole = optimizer_options_->build(groups_);
  set_group_lrs(*whole, group_lrs(*parts_optimizer_));
  return whole;
}

std::optional<PthValue> ZeroOptimizer::state() {
  at::NoGradGuard no_grad;
  const bool keep = collective_.rank() == 0;
  std::unique_ptr<torch::optim::Optimizer> whole;
  if (keep) whole = whole_optimizer();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const GradientBucket& bucket = buckets_[b];
    // Every rank's parts step together, so either all have state or none, under the same names.
    const std::optional<ParamStateEntries> part =
        entries_of(*optimizer_options_, *parts_optimizer_, parts_[b]);
    if (!part) continue;
    std::vector<at::Tensor> gathered;
    for (const auto& [name, mine] : part->tensors) {
      at::Tensor all = at::empty({bucket.padded_numel}, mine.options());
      collective_.all_gather(mine, all);
      gathered.push_back(all);
    }
    if (!keep) continue;
    for (size_t i = 0; i < bucket.params.size(); ++i) {
      const at::Tensor& param = registered_[bucket.params[i]];
      ParamStateEntries entries;
      entries.step = part->step;
      for (size_t t = 0; t < gathered.size(); ++t) {
        entries.tensors.emplace_back(
            part->tensors[t].first,
            gathered[t].narrow(0, bucket.offsets[i], param.numel()).view_as(param).clone());
      }
      set_entries(*optimizer_options_, *whole, param, entries,
                  "optimizer state of bucket " + std::to_string(b));
    }
  }
  if (!keep) return std::nullopt;
  return optimizer_state_to_pth(*whole, *optimizer_options_);
}

void ZeroOptimizer::load_state(const PthValue& state) {
  at::NoGradGuard no_grad;
  std::unique_ptr<torch::optim::Optimizer> whole = whole_optimizer();
  optimizer_state_from_pth(*whole, *optimizer_options_, state);
  const int64_t world = collective_.world_size();
  const int64_t rank = collective_.rank();
  parts_optimizer_->state().clear();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const GradientBucket& bucket = buckets_[b];
    std::vector<std::optional<ParamStateEntries>> states;
    ParamStateEntries part;
    std::vector<std::string> names;  // in the order the first parameter holding each has them
    bool any = false;
    for (size_t k : bucket.params) {
      states.push_back(entries_of(*optimizer_options_, *whole, registered_[k]));
      const std::optional<ParamStateEntries>& entries = states.back();
      if (!entries) continue;
      if (entries->step) {
        if (part.step && *part.step != *entries->step) {
          spdlog::warn(
              "optimizer state: parameters of one ZeRO bucket have taken different step counts "
              "({} and {}); their part continues from the larger",
              *part.step, *entries->step);
        }
        part.step = std::max(part.step.value_or(0), *entries->step);
      }
      for (const auto& [name, tensor] : entries->tensors) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
      any = true;
    }
    if (!any) continue;
    for (const std::string& name : names) {
      at::Tensor mine = at::zeros_like(parts_[b]);
      for (const PartSlice& slice : part_slices(bucket, registered_, rank, world)) {
        const std::optional<ParamStateEntries>& entries = states[slice.bucket_param];
        const at::Tensor* source = entries ? entries->find(name) : nullptr;
        if (source == nullptr) continue;
        mine.narrow(0, slice.part_offset, slice.count)
            .copy_(source->reshape({-1}).narrow(0, slice.param_offset, slice.count));
      }
      part.tensors.emplace_back(name, mine);
    }
    set_entries(*optimizer_options_, *parts_optimizer_, parts_[b], part,
                "optimizer state of bucket " + std::to_string(b));
  }
}

int64_t ZeroOptimizer::optimizer_state_bytes() const {
  int64_t bytes = 0;
  for (const at::Tensor& part : parts_) {
    if (const auto entries = entries_of(*optimizer_options_, *parts_optimizer_, part)) {
      for (const auto& [name, tensor] : entries->tensors) bytes += bytes_of(tensor);
    }
  }
  return bytes;
}

int64_t ZeroOptimizer::gradient_bytes() const {
  int64_t bytes = 0;
  for (const at::Tensor& param : registered_) bytes += bytes_of(param.grad());
  for (const at::Tensor& part : parts_) bytes += bytes_of(part.grad());
  return bytes;
}

std::string ZeroOptimizer::describe() const {
  std::ostringstream out;
  const int64_t world = collective_.world_size();
  out << "ZeRO stage " << stage_ << " over " << world << " ranks: optimizer state";
  if (stage_ == 2) out << " and gradients";
  out << " sharded (each rank keeps 1/" << world << " of " << buckets_.size()
      << " buckets of at most " << static_cast<double>(bucket_bytes_) / (1024.0 * 1024.0)
      << " MB; parameters whole on every rank, gathered after each step); ";
  if (stage_ == 1) {
    out << all_reduce_->describe();
  } else {
    out << "gradients reduce-scattered per bucket (" << collective_.reduce_scatter_method() << ", "
        << (overlap_ ? "overlapped with the backward" : "after the backward") << ")";
  }
  return out.str();
}

}  // namespace olv2
