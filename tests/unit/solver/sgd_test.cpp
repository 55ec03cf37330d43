// `optimizer.type: SGD` as torch.optim.SGD: read from the config with torch's defaults and
// checks, stepping as PyTorch's, its state moving both ways between us and PyTorch (a state we
// write continues in torch.optim.SGD as here, and one torch.optim.SGD writes continues here).
#include "olv2/solver/sgd.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/config/config_loader.h"
#include "olv2/engine/checkpoint/optimizer_state.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "support/python_numpy.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

TEST(Sgd, ReadsTorchsKeysWithTorchsDefaultsAndChecks) {
  const ConfigNode root = parse_yaml(
      "plain: {type: SGD, lr: 0.02}\n"
      "mmdet: {type: SGD, lr: 0.02, momentum: 0.9, weight_decay: 0.0001}\n"
      "nesterov_damped: {type: SGD, lr: 0.1, momentum: 0.9, dampening: 0.1, nesterov: true}\n",
      "sgd.yaml");
  const auto plain = optimizer_registry().read(root.at("plain"));
  const auto& sgd = dynamic_cast<const SgdOptions&>(*plain);
  EXPECT_EQ(sgd.momentum, 0.0);
  EXPECT_EQ(sgd.dampening, 0.0);
  EXPECT_EQ(sgd.weight_decay, 0.0);
  EXPECT_FALSE(sgd.nesterov);
  const auto& mmdet = dynamic_cast<const SgdOptions&>(*optimizer_registry().read(root.at("mmdet")));
  EXPECT_EQ(mmdet.momentum, 0.9);
  EXPECT_EQ(mmdet.weight_decay, 0.0001);
  try {
    optimizer_registry().read(root.at("nesterov_damped"));
    FAIL() << "Nesterov momentum with dampening was taken";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("sgd.yaml:3:"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("zero dampening"), std::string::npos) << error.what();
  }
}

// Two param groups (lrs 0.1 and 0.05) of SGD with Nesterov momentum 0.9 and weight decay 0.01;
// step k's gradient is sin((k + 1) * p), computed alike here and in Python.
struct SgdRun {
  SgdRun(const at::Tensor& first, const at::Tensor& second)
      : a(first.clone().requires_grad_(true)), b(second.clone().requires_grad_(true)) {
    options.momentum = 0.9;
    options.nesterov = true;
    options.weight_decay = 0.01;
    ParamGroup slow;
    slow.params = {a};
    slow.lr = 0.1;
    ParamGroup fast;
    fast.params = {b};
    fast.lr = 0.05;
    optimizer = options.build({slow, fast});
  }
  void step(int k) {
    torch::NoGradGuard no_grad;
    a.mutable_grad() = torch::sin(a * static_cast<double>(k + 1));
    b.mutable_grad() = torch::sin(b * static_cast<double>(k + 1));
    optimizer->step();
  }
  at::Tensor a;
  at::Tensor b;
  SgdOptions options;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

constexpr const char* kPytorchContinues = R"(
import sys, torch
ours, after_three, after_four = sys.argv[1:4]
saved = torch.load(ours)
a, b = (saved["params"][k].clone().requires_grad_(True) for k in ("a", "b"))
optimizer = torch.optim.SGD([{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.05}],
                            lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
optimizer.load_state_dict(saved["optimizer"])
def step(k):
    with torch.no_grad():
        a.grad = torch.sin(a * float(k + 1))
        b.grad = torch.sin(b * float(k + 1))
    optimizer.step()
step(3)
torch.save({"params": {"a": a.detach(), "b": b.detach()}, "optimizer": optimizer.state_dict()},
           after_three)
step(4)
torch.save({"params": {"a": a.detach(), "b": b.detach()}}, after_four)
)";

TEST(Sgd, ItsStateMovesBothWaysWithPyTorch) {
  const std::string python = test::python_executable("venv");
  if (test::run_command("'" + python + "' -c 'import torch'").exit_status != 0) {
    if (test::running_in_ci()) FAIL() << python << " cannot import torch under CI";
    GTEST_SKIP() << python << " cannot import torch (scripts/install_deps.sh)";
  }
  const fs::path scratch = test::scratch_dir("pytorch");
  torch::manual_seed(3);
  SgdRun ours(torch::randn({3, 2}), torch::randn({5}));
  for (int k = 0; k < 3; ++k) ours.step(k);
  write_pth(scratch / "ours.pth",
            PthValue::dict({{"params", PthValue::dict({{"a", PthValue::tensor(ours.a.detach())},
                                                       {"b", PthValue::tensor(ours.b.detach())}})},
                            {"optimizer", optimizer_state_to_pth(*ours.optimizer, ours.options)}}));
  const test::CommandResult run =
      test::run_python(python, kPytorchContinues,
                       {(scratch / "ours.pth").string(), (scratch / "after_three.pth").string(),
                        (scratch / "after_four.pth").string()},
                       scratch);
  ASSERT_EQ(run.exit_status, 0) << run.output;

  // Whether a run's parameters are those of a file's `params`.
  const auto same_params = [](const SgdRun& run, const PthValue& file) {
    return run.a.allclose(file.at("params").at("a").as_tensor(), 1e-6, 1e-7) &&
           run.b.allclose(file.at("params").at("b").as_tensor(), 1e-6, 1e-7);
  };

  // Our state continued in PyTorch: its fourth step is ours.
  ours.step(3);
  const PthValue after_three = read_pth(scratch / "after_three.pth");
  EXPECT_TRUE(same_params(ours, after_three));

  // PyTorch's state continued here: our fifth step is its.
  SgdRun theirs(after_three.at("params").at("a").as_tensor(),
                after_three.at("params").at("b").as_tensor());
  optimizer_state_from_pth(*theirs.optimizer, theirs.options, after_three.at("optimizer"));
  theirs.step(4);
  const PthValue after_four = read_pth(scratch / "after_four.pth");
  EXPECT_TRUE(same_params(theirs, after_four));
  // Without the momentum buffers PyTorch wrote, the step would differ.
  SgdRun fresh(after_three.at("params").at("a").as_tensor(),
               after_three.at("params").at("b").as_tensor());
  fresh.step(4);
  EXPECT_FALSE(same_params(fresh, after_four));
}

}  // namespace
}  // namespace olv2
