#pragma once
// The outcome of matching one sample's queries to its ground truth, in mmdet's terms.
#include <ATen/core/Tensor.h>

namespace olv2 {

// Outcome of a one-to-one assignment for one sample, with mmdet's `PseudoSampler` view of it.
struct AssignResult {
  int64_t num_gts = 0;
  at::Tensor assigned_gt_inds;      // [Q] int64: 0 = negative, g + 1 = matched to GT g
  at::Tensor pos_inds;              // [P] int64, ascending: queries matched to a GT
  at::Tensor neg_inds;              // [Q - P] int64, ascending: the other queries
  at::Tensor pos_assigned_gt_inds;  // [P] int64: the GT index of each positive
  // Point sets matched in any of their orders (MapTRAssigner): the order of its GT each positive
  // was matched in, [P] int64; undefined for the other assigners.
  at::Tensor pos_assigned_orders;
};

// Builds the result from the matched (query, GT) pairs of `num_queries` queries.
AssignResult make_assign_result(int64_t num_queries, int64_t num_gts,
                                const at::Tensor& matched_queries, const at::Tensor& matched_gts);

}  // namespace olv2
