#include "olv2/data/image_destination.h"

#include <ATen/ATen.h>

#include <utility>

namespace olv2 {
namespace {

thread_local at::Tensor destination_slice;

}  // namespace

ImageDestinationScope::ImageDestinationScope(at::Tensor slice)
    : previous_(std::exchange(destination_slice, std::move(slice))) {}

ImageDestinationScope::~ImageDestinationScope() { destination_slice = std::move(previous_); }

at::Tensor image_destination(at::IntArrayRef sizes) {
  if (destination_slice.defined() && destination_slice.sizes() == sizes &&
      destination_slice.scalar_type() == at::kFloat) {
    return std::exchange(destination_slice, at::Tensor());
  }
  return at::empty(sizes, at::kFloat);
}

}  // namespace olv2
