// Targets and losses of MapTRHead (MapTR's get_targets / loss_single, the point sets matched in
// their best order).
#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <utility>

#include "olv2/models/heads/maptr_head.h"
#include "olv2/util/error.h"

namespace olv2 {

at::Tensor point_set_orders(const at::Tensor& areas) {
  const int64_t points = areas.size(1);
  std::vector<at::Tensor> all;
  for (int64_t g = 0; g < areas.size(0); ++g) {
    const at::Tensor set = areas[g];
    std::vector<at::Tensor> orders;
    if (torch::equal(set[0], set[points - 1])) {
      const at::Tensor ring = set.narrow(0, 0, points - 1);
      for (int64_t shift = 0; shift < points; ++shift) {
        const at::Tensor rolled = ring.roll(shift, 0);
        orders.push_back(torch::cat({rolled, rolled.narrow(0, 0, 1)}));
      }
    } else {
      orders.push_back(set);
      orders.push_back(set.flip(0));
      // Orders no prediction comes near, so that every set has as many.
      for (int64_t k = 2; k < points; ++k) orders.push_back(torch::full_like(set, -10000.0));
    }
    all.push_back(torch::stack(orders));
  }
  if (all.empty()) {
    return torch::zeros({0, points, points, areas.size(2)}, areas.options().dtype(at::kFloat));
  }
  return torch::stack(all).to(at::kFloat);
}

namespace {

struct AreaLayerLosses {
  at::Tensor cls, pts, dir;
  std::vector<AssignResult> assign;
};

struct AreaSampleTargets {
  at::Tensor labels;   // [V] int64, num_classes = background
  at::Tensor points;   // [V, P, D], zero for negatives
  at::Tensor weights;  // [V, P, D], one for positives
  AssignResult assign;
};

AreaSampleTargets area_sample_targets(const MapTrHeadOptions& options, const Assigner& assigner,
                                      const at::Tensor& cls_scores, const at::Tensor& points,
                                      const at::Tensor& orders, const at::Tensor& gt_labels) {
  const auto device = points.device();
  const at::Tensor labels = gt_labels.reshape({-1}).to(device, torch::kLong);
  AssignInputs inputs;
  inputs.predictions = points.detach().flatten(1);
  inputs.cls_logits = cls_scores.detach();
  inputs.targets = orders.flatten(2);
  inputs.labels = labels;
  AreaSampleTargets t;
  t.assign = assigner.assign(inputs);
  const at::Tensor pos = t.assign.pos_inds.to(device);
  const at::Tensor pos_gt = t.assign.pos_assigned_gt_inds.to(device);
  t.labels = torch::full({points.size(0)}, options.num_classes, labels.options());
  t.labels.index_put_({pos}, labels.index_select(0, pos_gt));
  t.points = torch::zeros_like(points, torch::MemoryFormat::Contiguous);
  t.weights = torch::zeros_like(t.points);
  if (pos.numel() > 0) {
    const at::Tensor order = t.assign.pos_assigned_orders.to(device);
    t.points.index_put_({pos}, orders.index({pos_gt, order}).to(points.dtype()));
    t.weights.index_put_({pos}, 1.0);
  }
  return t;
}

// Predictions [N, P, D] at `points` points, linearly (align_corners) as the original does when
// the ground truth has another count.
at::Tensor at_gt_points(const at::Tensor& preds, int64_t points) {
  if (preds.size(1) == points) return preds;
  namespace F = torch::nn::functional;
  return F::interpolate(preds.permute({0, 2, 1}), F::InterpolateFuncOptions()
                                                      .size(std::vector<int64_t>{points})
                                                      .mode(torch::kLinear)
                                                      .align_corners(true))
      .permute({0, 2, 1})
      .contiguous();
}

AreaLayerLosses area_layer_losses(const MapTrHeadOptions& options, const Assigner& assigner,
                                  const at::Tensor& cls_scores, const at::Tensor& points,
                                  const std::vector<at::Tensor>& orders,
                                  const std::vector<AreaTargets>& targets,
                                  const std::function<double(double)>& reduce_mean) {
  const int64_t batch = cls_scores.size(0);
  std::vector<at::Tensor> labels, point_targets, weights;
  int64_t num_pos = 0;
  AreaLayerLosses out;
  for (int64_t b = 0; b < batch; ++b) {
    const auto s = static_cast<size_t>(b);
    AreaSampleTargets t = area_sample_targets(options, assigner, cls_scores[b], points[b],
                                              orders[s], targets[s].labels);
    num_pos += t.assign.pos_inds.numel();
    labels.push_back(t.labels);
    point_targets.push_back(t.points);
    weights.push_back(t.weights);
    out.assign.push_back(std::move(t.assign));
  }
  const DetrAverageFactors factors =
      detr_average_factors(num_pos, options.sync_cls_avg_factor, reduce_mean);
  out.cls = options.loss_cls->compute(cls_scores.reshape({-1, options.num_classes}),
                                      torch::cat(labels), {}, factors.cls);
  const double avg_factor = factors.regression;

  const at::Tensor preds = at_gt_points(points.reshape({-1, points.size(-2), points.size(-1)}),
                                        options.num_pts_per_gt_vec);
  const at::Tensor target = torch::cat(point_targets);
  const at::Tensor weight = torch::cat(weights);
  // Instances with a non-finite coordinate are left out of both point losses.
  const at::Tensor finite = torch::isfinite(preds).all(-1).all(-1);
  out.pts = options.loss_bbox->compute(preds.index({finite}), target.index({finite}),
                                       weight.index({finite}), avg_factor);
  const int64_t k = options.dir_interval;
  const int64_t directions = preds.size(1) - k;
  const auto direction = [&](const at::Tensor& p) {
    return p.narrow(1, k, directions) - p.narrow(1, 0, directions);
  };
  const at::Tensor dir_weight = weight.narrow(1, 0, directions).select(2, 0);
  out.dir =
      options.loss_dir->compute(direction(preds).index({finite}), direction(target).index({finite}),
                                dir_weight.index({finite}), avg_factor);
  out.cls = torch::nan_to_num(out.cls);
  out.pts = torch::nan_to_num(out.pts);
  out.dir = torch::nan_to_num(out.dir);
  return out;
}

}  // namespace

DetrHeadLosses MapTrHeadImpl::loss(const MapTrOutputs& outputs,
                                   const std::vector<AreaTargets>& targets,
                                   const std::function<double(double)>& reduce_mean) const {
  // The original computes its losses in fp32 (`force_fp32`).
  const at::Tensor all_cls_scores = outputs.cls_scores.to(torch::kFloat);
  const at::Tensor all_points = outputs.points.to(torch::kFloat);
  const int64_t num_layers = all_cls_scores.size(0);
  const int64_t batch = all_cls_scores.size(1);
  if (static_cast<int64_t>(targets.size()) != batch) {
    throw runtime_error("MapTRHead loss: " + std::to_string(targets.size()) +
                        " ground-truth sets for a batch of " + std::to_string(batch));
  }
  std::vector<at::Tensor> orders;
  for (const AreaTargets& t : targets) {
    if (t.points.dim() != 3 || t.points.size(0) != t.labels.numel() ||
        t.points.size(1) != options_.num_pts_per_gt_vec || t.points.size(2) != options_.pts_dim) {
      throw input_error("MapTRHead: " + std::to_string(t.labels.numel()) + " areas of " +
                        c10::str(t.points.sizes()) + " points; expected [G, " +
                        std::to_string(options_.num_pts_per_gt_vec) + ", " +
                        std::to_string(options_.pts_dim) +
                        "] (num_pts_per_gt_vec points of pts_dim values)");
    }
    orders.push_back(point_set_orders(t.points.to(all_points.device())));
  }
  std::vector<AreaLayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    layers.push_back(area_layer_losses(options_, *assigner_, all_cls_scores[l], all_points[l],
                                       orders, targets, reduce_mean));
  }
  // The original names the last layer's point loss `loss_reg` and the earlier ones' `loss_pts`.
  DetrHeadLosses result;
  const auto add = [&](const std::string& prefix, const char* points, const AreaLayerLosses& l) {
    result.losses.emplace_back(prefix + "loss_cls", l.cls);
    result.losses.emplace_back(prefix + points, l.pts);
    result.losses.emplace_back(prefix + "loss_dir", l.dir);
  };
  add("", "loss_reg", layers.back());
  for (size_t l = 0; l + 1 < layers.size(); ++l) {
    add("d" + std::to_string(l) + ".", "loss_pts", layers[l]);
  }
  for (AreaLayerLosses& layer : layers) result.assign_results.push_back(std::move(layer.assign));
  return result;
}

}  // namespace olv2
