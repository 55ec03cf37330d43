#include "olv2/assign/assign_result.h"

#include <torch/torch.h>

namespace olv2 {

AssignResult make_assign_result(int64_t num_queries, int64_t num_gts,
                                const at::Tensor& matched_queries, const at::Tensor& matched_gts) {
  AssignResult result;
  result.num_gts = num_gts;
  result.assigned_gt_inds = torch::zeros({num_queries}, torch::kLong);
  if (matched_queries.numel() > 0) {
    result.assigned_gt_inds.index_put_({matched_queries.to(torch::kLong)},
                                       matched_gts.to(torch::kLong) + 1);
  }
  result.pos_inds = torch::nonzero(result.assigned_gt_inds > 0).view(-1);
  result.neg_inds = torch::nonzero(result.assigned_gt_inds == 0).view(-1);
  result.pos_assigned_gt_inds = result.assigned_gt_inds.index_select(0, result.pos_inds) - 1;
  return result;
}

}  // namespace olv2
