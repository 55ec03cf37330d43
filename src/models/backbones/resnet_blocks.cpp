#include "olv2/models/backbones/resnet_blocks.h"

#include <torch/torch.h>

#include "olv2/models/activation_checkpoint.h"

namespace olv2 {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                       int64_t dilation) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                               .stride(stride)
                               .padding(padding)
                               .dilation(dilation)
                               .bias(false));
}

// mmdet checkpoints a block only when its input needs a gradient (`with_cp and
// x.requires_grad`).
bool should_checkpoint(bool with_cp, const at::Tensor& x) {
  return with_cp && x.requires_grad() && torch::GradMode::is_enabled();
}

}  // namespace

torch::nn::Sequential make_downsample(int64_t inplanes, int64_t outplanes, int64_t stride,
                                      const BatchNormOptions& norm) {
  return torch::nn::Sequential(conv(inplanes, outplanes, 1, stride, 0, 1),
                               BatchNorm2dLayer(outplanes, norm));
}

BasicBlockImpl::BasicBlockImpl(const ResBlockOptions& o, torch::nn::Sequential downsample)
    : with_cp_(o.with_cp) {
  // Registration order is the state-dict order of the original: conv1, bn1,
  // conv2, bn2, downsample.
  conv1_ =
      register_module("conv1", conv(o.inplanes, o.planes, 3, o.stride, o.dilation, o.dilation));
  bn1_ = register_module("bn1", BatchNorm2dLayer(o.planes, o.norm));
  conv2_ = register_module("conv2", conv(o.planes, o.planes, 3, 1, 1, 1));
  bn2_ = register_module("bn2", BatchNorm2dLayer(o.planes, o.norm));
  if (downsample) downsample_ = register_module("downsample", std::move(downsample));
}

at::Tensor BasicBlockImpl::body(const at::Tensor& x) {
  at::Tensor out = torch::relu(bn1_(conv1_(x)));
  out = bn2_(conv2_(out));
  return out + (downsample_ ? downsample_->forward(x) : x);
}

at::Tensor BasicBlockImpl::forward(const at::Tensor& x) {
  at::Tensor out =
      should_checkpoint(with_cp_, x)
          ? checkpoint([this](const at::Tensor& in) { return body(in); }, x, parameters())
          : body(x);
  return torch::relu(out);
}

BottleneckImpl::BottleneckImpl(const ResBlockOptions& o, torch::nn::Sequential downsample)
    : with_cp_(o.with_cp) {
  const int64_t conv1_stride = o.caffe_style ? o.stride : 1;
  const int64_t conv2_stride = o.caffe_style ? 1 : o.stride;
  conv1_ = register_module("conv1", conv(o.inplanes, o.planes, 1, conv1_stride, 0, 1));
  bn1_ = register_module("bn1", BatchNorm2dLayer(o.planes, o.norm));
  conv2_ =
      register_module("conv2", conv(o.planes, o.planes, 3, conv2_stride, o.dilation, o.dilation));
  bn2_ = register_module("bn2", BatchNorm2dLayer(o.planes, o.norm));
  conv3_ = register_module("conv3", conv(o.planes, o.planes * kExpansion, 1, 1, 0, 1));
  bn3_ = register_module("bn3", BatchNorm2dLayer(o.planes * kExpansion, o.norm));
  if (downsample) downsample_ = register_module("downsample", std::move(downsample));
}

at::Tensor BottleneckImpl::body(const at::Tensor& x) {
  at::Tensor out = torch::relu(bn1_(conv1_(x)));
  out = torch::relu(bn2_(conv2_(out)));
  out = bn3_(conv3_(out));
  return out + (downsample_ ? downsample_->forward(x) : x);
}

at::Tensor BottleneckImpl::forward(const at::Tensor& x) {
  at::Tensor out =
      should_checkpoint(with_cp_, x)
          ? checkpoint([this](const at::Tensor& in) { return body(in); }, x, parameters())
          : body(x);
  return torch::relu(out);
}

}  // namespace olv2
