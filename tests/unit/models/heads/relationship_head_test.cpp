#include "olv2/models/heads/relationship_head.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace olv2 {
namespace {

RelationshipHeadOptions rel_small_options(bool shared) {
  RelationshipHeadOptions options;
  options.in_channels_o1 = options.in_channels_o2 = 8;
  options.shared_param = shared;
  auto loss = std::make_shared<FocalLoss>();
  loss->loss_weight = 5.0;  // as baseline_large
  options.loss_rel = loss;
  return options;
}

AssignResult rel_assignment(std::vector<int64_t> pos, std::vector<int64_t> gt) {
  AssignResult result;
  result.pos_inds = torch::tensor(pos, torch::kLong);
  result.pos_assigned_gt_inds = torch::tensor(gt, torch::kLong);
  result.num_gts = static_cast<int64_t>(gt.size());
  return result;
}

void rel_zero_classifier_output(RelationshipHead& head) {
  torch::NoGradGuard no_grad;
  auto params = head->named_parameters();
  params["classifier.layers.2.weight"].zero_();
  params["classifier.layers.2.bias"].zero_();
}

TEST(RelationshipHead, KeepsTheOriginalsFixedWidths) {
  const auto params = RelationshipHead(rel_small_options(false))->named_parameters();
  EXPECT_EQ(params["MLP_o1.layers.2.weight"].sizes(), (std::vector<int64_t>{128, 8}));
  EXPECT_EQ(params["MLP_o2.layers.0.weight"].sizes(), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(params["classifier.layers.0.weight"].sizes(), (std::vector<int64_t>{256, 256}));
  EXPECT_EQ(params["classifier.layers.2.weight"].sizes(), (std::vector<int64_t>{1, 256}));
}

TEST(RelationshipHead, ScoresEveryPairOfTheLastLayer) {
  torch::manual_seed(5);
  RelationshipHead head(rel_small_options(false));
  const at::Tensor o1 = torch::randn({3, 2, 4, 8});
  const at::Tensor o2 = torch::randn({3, 2, 5, 8});
  const at::Tensor logits = head->forward(o1, o2);
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 4, 5, 1}));
  // Earlier layers play no part.
  const at::Tensor changed = o1.clone();
  changed[0].normal_();
  EXPECT_TRUE(torch::equal(head->forward(changed, o2), logits));
}

// With zero logits every pair costs the focal loss at p = 0.5, so the plain mean over all
// pairs is known: 5 * log 2 * 0.25 * (alpha * positives + (1 - alpha) * negatives) / pairs.
TEST(RelationshipHead, LossIsThePlainMeanOverAllPairs) {
  RelationshipHead head(rel_small_options(false));
  rel_zero_classifier_output(head);
  const at::Tensor o1 = torch::randn({1, 1, 4, 8});
  const at::Tensor o2 = torch::randn({1, 1, 5, 8});
  // Lane queries 1, 3 are GT 0, 1; TE queries 0, 4 are GT 1, 0. Adjacency: (0,0), (1,1).
  const at::Tensor adjacency = torch::tensor({1, 0, 0, 1}, torch::kChar).view({2, 2});
  const at::Tensor loss = head->loss(head->forward(o1, o2), {rel_assignment({1, 3}, {0, 1})},
                                     {rel_assignment({0, 4}, {1, 0})}, {adjacency});
  const double positives = 2, pairs = 20;
  const double expected =
      5 * std::log(2.0) * 0.25 * (0.25 * positives + 0.75 * (pairs - positives)) / pairs;
  EXPECT_NEAR(loss.item<double>(), expected, 1e-6);
}

// At zero logits the focal loss pushes a positive pair's logit up and a negative's down, so the
// sign of the gradient shows where the assignments put the GT edges.
TEST(RelationshipHead, TargetsFollowTheAssignments) {
  RelationshipHead head(rel_small_options(false));
  rel_zero_classifier_output(head);
  const at::Tensor o1 = torch::randn({1, 1, 4, 8});
  const at::Tensor o2 = torch::randn({1, 1, 5, 8});
  const at::Tensor adjacency = torch::tensor({1, 0, 0, 1}, torch::kChar).view({2, 2});
  const at::Tensor logits = head->forward(o1, o2).detach().requires_grad_(true);
  head->loss(logits, {rel_assignment({1, 3}, {0, 1})}, {rel_assignment({0, 4}, {1, 0})},
             {adjacency})
      .backward();
  const at::Tensor positive = logits.grad().squeeze(-1)[0] < 0;
  at::Tensor expected = torch::zeros({4, 5}, torch::kBool);
  expected[1][4] = true;  // lane GT 0 -> TE GT 0
  expected[3][0] = true;  // lane GT 1 -> TE GT 1
  EXPECT_TRUE(torch::equal(positive, expected));
}

TEST(RelationshipHead, SharedParametersUseOneMlpAndTheFirstAssignment) {
  torch::manual_seed(6);
  RelationshipHead head(rel_small_options(true));
  auto params = head->named_parameters();
  EXPECT_TRUE(params["MLP_o1.layers.0.weight"].is_same(params["MLP_o2.layers.0.weight"]));
  const at::Tensor hs = torch::randn({1, 1, 4, 8});
  const at::Tensor logits = head->forward(hs, hs);
  const at::Tensor adjacency = torch::tensor({0, 1, 0, 0}, torch::kChar).view({2, 2});
  const std::vector<AssignResult> lanes = {rel_assignment({0, 2}, {0, 1})};
  const at::Tensor with_own = head->loss(logits, lanes, lanes, {adjacency});
  const at::Tensor with_other = head->loss(logits, lanes, {rel_assignment({3}, {1})}, {adjacency});
  EXPECT_EQ(with_own.item<double>(), with_other.item<double>());
}

}  // namespace
}  // namespace olv2
