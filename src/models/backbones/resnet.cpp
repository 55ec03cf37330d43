#include "olv2/models/backbones/resnet.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <utility>

#include "olv2/config/section_readers.h"
#include "olv2/models/backbones/resnet_blocks.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct Architecture {
  bool bottleneck;
  std::vector<int64_t> blocks_per_stage;
};

Architecture architecture(int64_t depth) {
  static const std::map<int64_t, Architecture> kArchitectures = {{18, {false, {2, 2, 2, 2}}},
                                                                 {34, {false, {3, 4, 6, 3}}},
                                                                 {50, {true, {3, 4, 6, 3}}},
                                                                 {101, {true, {3, 4, 23, 3}}},
                                                                 {152, {true, {3, 8, 36, 3}}}};
  auto found = kArchitectures.find(depth);
  if (found == kArchitectures.end()) {
    throw input_error("ResNet: depth " + std::to_string(depth) +
                      " is not supported (expected 18, 34, 50, 101 or 152)");
  }
  return found->second;
}

void set_requires_grad(torch::nn::Module& module, bool requires_grad) {
  for (at::Tensor& parameter : module.parameters()) parameter.requires_grad_(requires_grad);
}

}  // namespace

Schema ResNetOptions::schema() {
  Schema schema = typed_schema("ResNet");
  schema.required("depth", Schema::integer())
      .optional("in_channels", Schema::integer())
      .optional("stem_channels", Schema::integer().nullable())
      .optional("base_channels", Schema::integer())
      .optional("num_stages", Schema::integer().range(1, 4))
      .optional("strides", integers_schema())
      .optional("dilations", integers_schema())
      .optional("out_indices", integers_schema())
      .optional("style", Schema::string().choices({"pytorch", "caffe"}))
      .optional("frozen_stages", Schema::integer())
      .optional("norm_cfg", BatchNormOptions::schema())
      .optional("norm_eval", Schema::boolean())
      .optional("with_cp", Schema::boolean())
      .optional("zero_init_residual", Schema::boolean())
      .optional("init_cfg", PretrainedCheckpoint::schema().nullable());
  return schema;
}

ResNetOptions ResNetOptions::from_config(const ConfigNode& section) {
  ResNetOptions o;
  o.depth = section.at("depth").as_int();
  o.in_channels = section.get<int64_t>("in_channels", o.in_channels);
  o.base_channels = section.get<int64_t>("base_channels", o.base_channels);
  o.stem_channels = section.get<int64_t>("stem_channels", o.base_channels);
  o.num_stages = section.get<int64_t>("num_stages", o.num_stages);
  if (const ConfigNode* v = section.find("strides")) o.strides = v->as_vector<int64_t>();
  if (const ConfigNode* v = section.find("dilations")) o.dilations = v->as_vector<int64_t>();
  if (const ConfigNode* v = section.find("out_indices")) o.out_indices = v->as_vector<int64_t>();
  o.style = section.get<std::string>("style", o.style);
  o.frozen_stages = section.get<int64_t>("frozen_stages", o.frozen_stages);
  if (const ConfigNode* norm = section.find("norm_cfg"))
    o.norm = BatchNormOptions::from_config(*norm);
  o.norm_eval = section.get<bool>("norm_eval", o.norm_eval);
  o.with_cp = section.get<bool>("with_cp", o.with_cp);
  o.zero_init_residual = section.get<bool>("zero_init_residual", o.zero_init_residual);
  if (const ConfigNode* init = section.find("init_cfg"); init != nullptr && !init->is_null()) {
    o.init_cfg = PretrainedCheckpoint::from_config(*init);
  }
  return o;
}

std::shared_ptr<BackboneImpl> ResNetOptions::build() const {
  return std::make_shared<ResNetImpl>(*this);
}

ResNetImpl::ResNetImpl(const ResNetOptions& options) : options_(options) {
  const Architecture arch = architecture(options.depth);
  const int64_t num_stages = options.num_stages;
  if (num_stages < 1 || num_stages > 4 ||
      static_cast<int64_t>(options.strides.size()) < num_stages ||
      static_cast<int64_t>(options.dilations.size()) < num_stages) {
    throw input_error("ResNet: num_stages must be 1..4 with as many strides and dilations");
  }
  for (int64_t index : options.out_indices) {
    if (index < 0 || index >= num_stages) {
      throw input_error("ResNet: out_indices entry " + std::to_string(index) + " is outside 0.." +
                        std::to_string(num_stages - 1));
    }
  }
  expansion_ = arch.bottleneck ? BottleneckImpl::kExpansion : BasicBlockImpl::kExpansion;

  conv1_ = register_module(
      "conv1",
      torch::nn::Conv2d(torch::nn::Conv2dOptions(options.in_channels, options.stem_channels, 7)
                            .stride(2)
                            .padding(3)
                            .bias(false)));
  bn1_ = register_module("bn1", BatchNorm2dLayer(options.stem_channels, options.norm));

  int64_t inplanes = options.stem_channels;
  for (int64_t stage = 0; stage < num_stages; ++stage) {
    const int64_t planes = options.base_channels << stage;
    torch::nn::Sequential layer;
    for (int64_t block = 0; block < arch.blocks_per_stage[stage]; ++block) {
      ResBlockOptions block_options;
      block_options.inplanes = inplanes;
      block_options.planes = planes;
      block_options.stride = block == 0 ? options.strides[stage] : 1;
      block_options.dilation = options.dilations[stage];
      block_options.caffe_style = options.style == "caffe";
      block_options.with_cp = options.with_cp;
      block_options.norm = options.norm;
      torch::nn::Sequential downsample{nullptr};
      if (block == 0 && (block_options.stride != 1 || inplanes != planes * expansion_)) {
        downsample =
            make_downsample(inplanes, planes * expansion_, block_options.stride, options.norm);
      }
      if (arch.bottleneck) {
        layer->push_back(Bottleneck(block_options, downsample));
      } else {
        layer->push_back(BasicBlock(block_options, downsample));
      }
      inplanes = planes * expansion_;
    }
    layers_.push_back(register_module("layer" + std::to_string(stage + 1), layer));
  }
  init_weights();
  freeze_stages();
}

std::vector<int64_t> ResNetImpl::stage_channels() const {
  std::vector<int64_t> channels;
  for (int64_t stage = 0; stage < options_.num_stages; ++stage) {
    channels.push_back((options_.base_channels << stage) * expansion_);
  }
  return channels;
}

void ResNetImpl::init_weights() {
  torch::NoGradGuard no_grad;
  for (const std::shared_ptr<torch::nn::Module>& module : modules(/*include_self=*/false)) {
    if (auto* conv = dynamic_cast<torch::nn::Conv2dImpl*>(module.get())) {
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      if (conv->bias.defined()) conv->bias.zero_();
    } else if (auto* norm = dynamic_cast<BatchNorm2dLayerImpl*>(module.get())) {
      norm->weight.fill_(1.0);
      norm->bias.zero_();
    }
  }
  if (!options_.zero_init_residual) return;
  for (const std::shared_ptr<torch::nn::Module>& module : modules(false)) {
    BatchNorm2dLayerImpl* last = nullptr;
    if (auto* block = dynamic_cast<BasicBlockImpl*>(module.get())) last = block->last_norm().get();
    if (auto* block = dynamic_cast<BottleneckImpl*>(module.get())) last = block->last_norm().get();
    if (last != nullptr) {
      last->weight.zero_();
      last->bias.zero_();
    }
  }
}

void ResNetImpl::freeze_stages() {
  if (options_.frozen_stages < 0) return;
  conv1_->eval();
  bn1_->eval();
  set_requires_grad(*conv1_, false);
  set_requires_grad(*bn1_, false);
  for (int64_t stage = 0; stage < options_.frozen_stages && stage < options_.num_stages; ++stage) {
    layers_[stage]->eval();
    set_requires_grad(*layers_[stage], false);
  }
}

void ResNetImpl::train(bool on) {
  torch::nn::Module::train(on);
  freeze_stages();
  if (on && options_.norm_eval) {
    for (const std::shared_ptr<torch::nn::Module>& module : modules(false)) {
      if (dynamic_cast<BatchNorm2dLayerImpl*>(module.get()) != nullptr) module->eval();
    }
  }
}

std::vector<at::Tensor> ResNetImpl::forward(const at::Tensor& x) {
  // The original's memory layout (NCHW), not channels-last: with BatchNorm on batch statistics
  // the weight gradients are sums that nearly cancel, and channels-last kernels' summation
  // order moved them by up to 1e-2 relative from the original's (tests/parity/
  // model_gradients_test.cpp).
  const at::Tensor input = x.contiguous();
  at::Tensor out = torch::max_pool2d(torch::relu(bn1_(conv1_(input))), 3, 2, 1);
  // Outputs come in stage order whatever the order of out_indices, as in mmdet.
  std::vector<at::Tensor> outs;
  for (size_t stage = 0; stage < layers_.size(); ++stage) {
    out = layers_[stage]->forward(out);
    const std::vector<int64_t>& wanted = options_.out_indices;
    if (std::find(wanted.begin(), wanted.end(), static_cast<int64_t>(stage)) != wanted.end()) {
      outs.push_back(out);
    }
  }
  return outs;
}

}  // namespace olv2
