#include "olv2/models/gradient_record.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Kind = GradientDifference::Kind;

const GradientDifference& find(const std::vector<GradientDifference>& differences,
                               const std::string& name) {
  for (const auto& d : differences) {
    if (d.name == name) return d;
  }
  throw std::runtime_error("no entry " + name);
}

TEST(GradientRecord, RecordsEveryParameterWithAGradientUnderItsStateDictName) {
  torch::nn::Sequential model(torch::nn::Linear(3, 2), torch::nn::Linear(2, 1));
  model[1]->as<torch::nn::Linear>()->bias.set_requires_grad(false);
  model->forward(torch::ones({4, 3})).sum().backward();
  const NamedTensors record = gradient_record(*model);
  ASSERT_EQ(record.size(), 3u);
  EXPECT_EQ(record[0].first, "0.weight");
  EXPECT_EQ(record[1].first, "0.bias");
  EXPECT_EQ(record[2].first, "1.weight");
  // d(sum)/d(bias of layer 1) = 4 rows x layer 2's weight.
  EXPECT_TRUE(record[1].second.allclose(4 * model[1]->as<torch::nn::Linear>()->weight[0]));
}

TEST(GradientRecord, RelativeL2DifferencesComeWorstFirst) {
  const at::Tensor reference = torch::tensor({3.0, 4.0});  // norm 5
  const NamedTensors ours = {{"a", torch::tensor({3.0, 4.5})},
                             {"b", torch::tensor({3.0, 4.0})},
                             {"c", torch::tensor({0.0, 4.0})}};
  const auto differences =
      compare_gradient_records(ours, {{"a", reference}, {"b", reference}, {"c", reference}});
  ASSERT_EQ(differences.size(), 3u);
  EXPECT_EQ(differences[0].name, "c");
  EXPECT_NEAR(differences[0].relative, 3.0 / 5.0, 1e-12);
  EXPECT_EQ(differences[1].name, "a");
  EXPECT_NEAR(differences[1].relative, 0.5 / 5.0, 1e-12);
  EXPECT_EQ(differences[2].relative, 0.0);
  EXPECT_NEAR(differences[1].our_norm, std::sqrt(9.0 + 4.5 * 4.5), 1e-6);
  EXPECT_FALSE(within_tolerance(differences[1], 0.05));
  EXPECT_TRUE(within_tolerance(differences[1], 0.1));
}

// A summarized tensor: slice norms along dim 0 and values at sampled indices; the larger of
// the two relative differences counts.
TEST(GradientRecord, ASummaryComparesSliceNormsAndTheSample) {
  const at::Tensor reference = torch::arange(1.0, 13.0).reshape({3, 4});
  const at::Tensor index = torch::tensor({1, 6, 11}, torch::kInt);
  const NamedTensors summary = {
      {"w@rows", reference.reshape({3, -1}).norm(2, {1})},
      {"w@index", index},
      {"w@sample", reference.reshape({-1}).index_select(0, index.to(torch::kLong))}};

  const auto same = compare_gradient_records({{"w", reference.clone()}}, summary);
  ASSERT_EQ(same.size(), 1u);
  EXPECT_TRUE(same[0].summarized);
  EXPECT_EQ(same[0].kind, Kind::kCompared);
  EXPECT_LT(same[0].relative, 1e-7);  // the float32 slice norms against ours in double

  // A change at a sampled index: seen by the sample (and its row norm).
  at::Tensor sampled = reference.clone();
  sampled[1][2] = 0.0;  // flat index 6, value 7
  const double sample_norm = std::sqrt(2.0 * 2 + 7.0 * 7 + 12.0 * 12);
  EXPECT_NEAR(compare_gradient_records({{"w", sampled}}, summary)[0].relative, 7.0 / sample_norm,
              1e-12);
  // A sign flip off the sample keeps every norm: only a swap of magnitudes between rows shows.
  at::Tensor flipped = reference.clone();
  flipped[0][0] = -1.0;
  EXPECT_LT(compare_gradient_records({{"w", flipped}}, summary)[0].relative, 1e-7);
  at::Tensor moved = reference.clone();
  moved[0][0] = 0.0;
  EXPECT_GT(compare_gradient_records({{"w", moved}}, summary)[0].relative, 1e-3);
}

TEST(GradientRecord, NoiseOfAZeroGradientAndOneSidedEntriesAreReportedApart) {
  const NamedTensors reference = {{"big", torch::full({4}, 10.0)},
                                  {"noise", torch::full({4}, 1e-8)},
                                  {"theirs", torch::ones({2})},
                                  {"zero_theirs", torch::zeros({2})},
                                  {"woken", torch::zeros({2})}};
  const NamedTensors ours = {{"big", torch::full({4}, 10.0)},
                             {"noise", torch::full({4}, 3e-8)},
                             {"mine", torch::zeros({3})},
                             {"woken", torch::full({2}, 1e-3)}};
  const auto differences = compare_gradient_records(ours, reference);
  ASSERT_EQ(differences.size(), 6u);
  EXPECT_EQ(differences[0].name, "big");
  EXPECT_EQ(find(differences, "noise").kind, Kind::kZeroInReference);
  EXPECT_TRUE(within_tolerance(find(differences, "noise"), 1e-5));
  // Zero in the reference (floor: 1e-6 of big's norm 20), far above the floor here.
  EXPECT_EQ(find(differences, "woken").kind, Kind::kZeroInReference);
  EXPECT_FALSE(within_tolerance(find(differences, "woken"), 1e-5));
  EXPECT_EQ(find(differences, "theirs").kind, Kind::kOnlyInReference);
  EXPECT_FALSE(within_tolerance(find(differences, "theirs"), 1e-5));
  EXPECT_EQ(find(differences, "zero_theirs").kind, Kind::kOnlyInReference);
  EXPECT_TRUE(within_tolerance(find(differences, "zero_theirs"), 1e-5));
  EXPECT_EQ(find(differences, "mine").kind, Kind::kOnlyInOurs);
  EXPECT_TRUE(within_tolerance(find(differences, "mine"), 1e-5));

  const std::string table = format_gradient_differences(differences);
  EXPECT_NE(table.find("zero in ref"), std::string::npos) << table;
  EXPECT_NE(table.find("no gradient"), std::string::npos) << table;
  EXPECT_NE(table.find("not in ref"), std::string::npos) << table;
}

TEST(GradientRecord, AShapeThatDisagreesIsAnInputErrorNamingTheTensor) {
  try {
    compare_gradient_records({{"w", torch::ones({2, 3})}}, {{"w", torch::ones({3, 2})}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gradient `w`"), std::string::npos) << e.what();
  }
  try {
    compare_gradient_records({{"w", torch::ones({2, 3})}}, {{"w@rows", torch::ones({2})},
                                                            {"w@index", torch::tensor({9})},
                                                            {"w@sample", torch::ones({1})}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not fit 6 elements"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace olv2
