#include "olv2/util/state_dict.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "unit/util/pth/pth_expectations.h"

namespace olv2 {
namespace {

// The C++ twin of TinyModel in scripts/make_pth_test_files.py: the buffer `scale` is
// registered after the children, yet PyTorch lists it first (own tensors before children's).
struct TinyModelImpl : torch::nn::Module {
  TinyModelImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3)));
    bn = register_module("bn", torch::nn::BatchNorm2d(4));
    head = register_module("head", torch::nn::Sequential(torch::nn::Linear(4, 5), torch::nn::ReLU(),
                                                         torch::nn::Linear(5, 2)));
    scale = register_buffer("scale", torch::ones({2}));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Sequential head{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(TinyModel);

std::vector<std::string> keys_of(const NamedTensors& tensors) {
  std::vector<std::string> keys;
  for (const auto& entry : tensors) keys.push_back(entry.first);
  return keys;
}

NamedTensors python_state_dict() {
  return tensors_of(read_pth(test::pth_data_dir() / "state_dict.pth"));
}

std::string load_error(torch::nn::Module& module, const NamedTensors& tensors,
                       const LoadStateDictOptions& options) {
  try {
    load_state_dict(module, tensors, options);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(StateDict, ModuleOrderIsPyTorchStateDictOrder) {
  TinyModel model;
  EXPECT_EQ(keys_of(module_state_dict(*model)), keys_of(python_state_dict()));
}

TEST(StateDict, LoadsPythonTensorsIntoTheModule) {
  TinyModel model;
  const NamedTensors source = python_state_dict();
  load_state_dict(*model, source);
  const NamedTensors loaded = module_state_dict(*model);
  ASSERT_EQ(loaded.size(), source.size());
  for (size_t i = 0; i < loaded.size(); ++i)
    EXPECT_TRUE(torch::equal(loaded[i].second, source[i].second)) << loaded[i].first;
}

TEST(StateDict, LoadsTheStateDictInsideAnMmcvCheckpoint) {
  TinyModel model;
  const PthValue checkpoint = read_pth(test::pth_data_dir() / "mmcv_checkpoint.pth");
  load_state_dict(*model, tensors_of(checkpoint.at("state_dict")));
  EXPECT_TRUE(torch::equal(model->bn->running_var,
                           checkpoint.at("state_dict").at("bn.running_var").as_tensor()));
}

TEST(StateDict, PrefixSelectsAndStripsCheckpointKeys) {
  TinyModel model;
  NamedTensors wrapped;
  for (const auto& [name, tensor] : python_state_dict())
    wrapped.emplace_back("module." + name, tensor);
  wrapped.emplace_back("other.weight", torch::zeros({1}));
  load_state_dict(*model, wrapped, {true, "module."});
  EXPECT_TRUE(torch::equal(model->conv->weight, wrapped[1].second));
}

TEST(StateDict, OneMessageListsMissingUnexpectedAndMismatchedKeys) {
  TinyModel model;
  NamedTensors source = python_state_dict();
  source.erase(source.begin() + 1);                         // conv.weight missing
  source.emplace_back("head.9.weight", torch::zeros({3}));  // unexpected
  source[0].second = torch::zeros({5});                     // scale: [5] instead of [2]
  const std::string message = load_error(*model, source, {});
  EXPECT_NE(message.find("missing keys (1):\n    conv.weight"), std::string::npos) << message;
  EXPECT_NE(message.find("unexpected keys (1):\n    head.9.weight"), std::string::npos) << message;
  EXPECT_NE(message.find("scale: checkpoint [5], module [2]"), std::string::npos) << message;
  EXPECT_EQ(model->scale[0].item<float>(), 1.0F) << "nothing is copied when loading fails";
}

TEST(StateDict, NonStrictReportsKeysButStillRefusesShapeMismatches) {
  TinyModel model;
  NamedTensors source = python_state_dict();
  source.erase(source.begin());
  source.emplace_back("extra", torch::zeros({1}));
  const LoadStateDictReport report = load_state_dict(*model, source, {false, ""});
  EXPECT_EQ(report.missing_keys, std::vector<std::string>{"scale"});
  EXPECT_EQ(report.unexpected_keys, std::vector<std::string>{"extra"});
  source[0].second = torch::zeros({9});
  EXPECT_NE(load_error(*model, source, {false, ""}).find("shape mismatches"), std::string::npos);
}

}  // namespace
}  // namespace olv2
