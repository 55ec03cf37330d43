#include "op_profile.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

namespace olv2 {
namespace {

TEST(OpProfile, CountsEachOperatorsCallsAndItsSelfTimeInTheScopeOnly) {
  const at::Tensor a = torch::randn({256, 256});
  torch::mm(a, a);  // before the scope: not counted
  OpProfile profile;
  for (int i = 0; i < 3; ++i) torch::mm(a, a);
  const at::Tensor summed = torch::relu(a).sum();
  const std::vector<OpTime> ops = profile.stop();
  const auto find = [&](const std::string& name) {
    return std::find_if(ops.begin(), ops.end(), [&](const OpTime& op) { return op.name == name; });
  };
  ASSERT_NE(find("aten::mm"), ops.end());
  EXPECT_EQ(find("aten::mm")->calls, 3);
  EXPECT_GT(find("aten::mm")->self_s, 0.0);
  EXPECT_NE(find("aten::relu"), ops.end());
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end(),
                             [](const OpTime& x, const OpTime& y) { return x.self_s > y.self_s; }));
  double total = 0.0;
  for (const OpTime& op : ops) total += op.self_s;
  EXPECT_GE(total, find("aten::mm")->self_s);
}

}  // namespace
}  // namespace olv2
