#pragma once
#include <ATen/core/Tensor.h>

namespace olv2 {

// Lets the loader have the format bundle write a sample's camera images straight into the
// batch tensor it is assembling, so that collate finds the batch already made instead of
// copying every image into it. While a scope lives on a thread, the first image tensor asked
// for with the sizes of the scope's slice is that slice.
class ImageDestinationScope {
 public:
  explicit ImageDestinationScope(at::Tensor slice);
  ~ImageDestinationScope();
  ImageDestinationScope(const ImageDestinationScope&) = delete;
  ImageDestinationScope& operator=(const ImageDestinationScope&) = delete;

 private:
  at::Tensor previous_;
};

// A float tensor of `sizes` for the caller to fill entirely: the current scope's slice when
// its sizes match (once per scope), else a new tensor.
at::Tensor image_destination(at::IntArrayRef sizes);

}  // namespace olv2
