#include "olv2/engine/distributed/zero_optimizer.h"

#include <ATen/ATen.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

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

// Adam's and AdamW's per-parameter state share their members; this reads and writes either.
struct AdamMoments {
  int64_t step = 0;
  at::Tensor exp_avg;
  at::Tensor exp_avg_sq;
  at::Tensor max_exp_avg_sq;  // amsgrad only
};

std::optional<AdamMoments> moments_of(const torch::optim::Optimizer& optimizer,
                                      const at::Tensor& param) {
  const auto found = optimizer.state().find(compat::optimizer_state_key(param));
  if (found == optimizer.state().end()) return std::nullopt;
  const auto read = [](const auto& state) {
    return AdamMoments{static_cast<int64_t>(state.step()), state.exp_avg(), state.exp_avg_sq(),
                       state.max_exp_avg_sq()};
  };
  if (const auto* adamw = dynamic_cast<const torch::optim::AdamWParamState*>(found->second.get()))
    return read(*adamw);
  return read(dynamic_cast<const torch::optim::AdamParamState&>(*found->second));
}

void set_moments(torch::optim::Optimizer& optimizer, const at::Tensor& param,
                 const AdamMoments& moments) {
  const auto fill = [&](auto state) {
    state->step(moments.step);
    state->exp_avg(moments.exp_avg);
    state->exp_avg_sq(moments.exp_avg_sq);
    if (moments.max_exp_avg_sq.defined()) state->max_exp_avg_sq(moments.max_exp_avg_sq);
    optimizer.state()[compat::optimizer_state_key(param)] = std::move(state);
  };
  if (dynamic_cast<const torch::optim::AdamW*>(&optimizer) != nullptr) {
    fill(std::make_unique<torch::optim::AdamWParamState>());
  } else {
    fill(std::make_unique<torch::optim::AdamParamState>());
  }
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
  // The state moves between ranks as Adam's moments.
  if (dynamic_cast<const torch::optim::Adam*>(parts_optimizer_.get()) == nullptr &&
      dynamic_cast<const torch::optim::AdamW*>(parts_optimizer_.get()) == nullptr) {
    throw input_error("zero_optimization.stage " + std::to_string(stage_) +
                      ": ZeRO shards Adam's state; optimizer.type " + optimizer_options_->type +
                      " is not Adam or AdamW");
  }
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
    // Every rank's parts step together, so either all have state or none.
    const std::optional<AdamMoments> part = moments_of(*parts_optimizer_, parts_[b]);
    if (!part) continue;
    const auto gather = [&](const at::Tensor& mine) {
      at::Tensor all = at::empty({bucket.padded_numel}, mine.options());
      collective_.all_gather(mine, all);
      return all;
    };
    const at::Tensor exp_avg = gather(part->exp_avg);
    const at::Tensor exp_avg_sq = gather(part->exp_avg_sq);
    const at::Tensor max_exp_avg_sq =
        part->max_exp_avg_sq.defined() ? gather(part->max_exp_avg_sq) : at::Tensor();
    if (!keep) continue;
    for (size_t i = 0; i < bucket.params.size(); ++i) {
      const at::Tensor& param = registered_[bucket.params[i]];
      const auto slice = [&](const at::Tensor& flat) {
        return flat.defined()
                   ? flat.narrow(0, bucket.offsets[i], param.numel()).view_as(param).clone()
                   : at::Tensor();
      };
      set_moments(
          *whole, param,
          AdamMoments{part->step, slice(exp_avg), slice(exp_avg_sq), slice(max_exp_avg_sq)});
    }
  }
  if (!keep) return std::nullopt;
  return adam_state_to_pth(*whole);
}

void ZeroOptimizer::load_state(const PthValue& state) {
  at::NoGradGuard no_grad;
  std::unique_ptr<torch::optim::Optimizer> whole = whole_optimizer();
  adam_state_from_pth(*whole, state);
  const int64_t world = collective_.world_size();
  const int64_t rank = collective_.rank();
  parts_optimizer_->state().clear();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    const GradientBucket& bucket = buckets_[b];
    AdamMoments part;
    bool any = false;
    bool amsgrad = false;
    for (size_t k : bucket.params) {
      if (const auto moments = moments_of(*whole, registered_[k])) {
        if (any && moments->step != part.step) {
          spdlog::warn(
              "optimizer state: parameters of one ZeRO bucket have taken different step counts "
              "({} and {}); their part continues from the larger",
              part.step, moments->step);
        }
        part.step = std::max(part.step, moments->step);
        amsgrad = amsgrad || moments->max_exp_avg_sq.defined();
        any = true;
      }
    }
    if (!any) continue;
    const auto cut = [&](auto member) {
      at::Tensor mine = at::zeros_like(parts_[b]);
      for (const PartSlice& slice : part_slices(bucket, registered_, rank, world)) {
        const auto moments = moments_of(*whole, registered_[bucket.params[slice.bucket_param]]);
        if (!moments) continue;
        const at::Tensor& source = (*moments).*member;
        mine.narrow(0, slice.part_offset, slice.count)
            .copy_(source.reshape({-1}).narrow(0, slice.param_offset, slice.count));
      }
      return mine;
    };
    part.exp_avg = cut(&AdamMoments::exp_avg);
    part.exp_avg_sq = cut(&AdamMoments::exp_avg_sq);
    if (amsgrad) part.max_exp_avg_sq = cut(&AdamMoments::max_exp_avg_sq);
    set_moments(*parts_optimizer_, parts_[b], part);
  }
}

int64_t ZeroOptimizer::optimizer_state_bytes() const {
  int64_t bytes = 0;
  for (const at::Tensor& part : parts_) {
    if (const auto moments = moments_of(*parts_optimizer_, part)) {
      bytes += bytes_of(moments->exp_avg) + bytes_of(moments->exp_avg_sq) +
               bytes_of(moments->max_exp_avg_sq);
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
