#include "olv2/util/large_block_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <opencv2/core/mat.hpp>
#include <string>

#include "olv2/util/compat.h"
#include "olv2/util/platform.h"

namespace olv2 {
namespace {

std::atomic<bool> large_block_cache_in_use{false};

// Never destroyed: tensors and images may be freed while static objects are torn down.
BlockCache& shared_cache() {
  static BlockCache* cache = new BlockCache(BlockCache::Memory{
      platform::map_pages, platform::unmap_pages, platform::page_size(), platform::move_pages});
  return *cache;
}

c10::Allocator* tensor_fallback = nullptr;

void release_tensor_block(void* block) { shared_cache().release(block); }

// raw_allocate hands out either kind of block; the cache knows its own.
void release_raw_block(void* block) {
  if (!shared_cache().release(block)) tensor_fallback->raw_deleter()(block);
}

class LargeBlockTensorAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) OLV2_ALLOCATOR_ALLOCATE_CONST override {
    if (bytes < kLargeBlockBytes) return tensor_fallback->allocate(bytes);
    void* block = shared_cache().acquire(bytes);
    TORCH_CHECK(block != nullptr, "large-block allocator: out of memory: you tried to allocate ",
                bytes, " bytes");
    return {block, block, &release_tensor_block, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override {
    return tensor_fallback->raw_deleter() != nullptr ? &release_raw_block : nullptr;
  }

#if OLV2_ALLOCATOR_HAS_COPY_DATA
  void copy_data(void* destination, const void* source, size_t bytes) const override {
    default_copy_data(destination, source, bytes);
  }
#endif
};

// A dense cv::Mat's steps are the element size times the sizes of the later dimensions.
class LargeBlockMatAllocator final : public cv::MatAllocator {
 public:
  cv::UMatData* allocate(int dims, const int* sizes, int type, void* data, size_t* steps,
                         cv::AccessFlag flags, cv::UMatUsageFlags usage) const override {
    const cv::MatAllocator* standard = cv::Mat::getStdAllocator();
    if (data != nullptr || steps == nullptr) {
      return standard->allocate(dims, sizes, type, data, steps, flags, usage);
    }
    size_t bytes = CV_ELEM_SIZE(type);
    for (int i = dims - 1; i >= 0; --i) {
      steps[i] = bytes;
      bytes *= static_cast<size_t>(sizes[i]);
    }
    if (bytes < kLargeBlockBytes) {
      return standard->allocate(dims, sizes, type, data, steps, flags, usage);
    }
    void* block = shared_cache().acquire(bytes);
    if (block == nullptr) {
      CV_Error(cv::Error::StsNoMem, "large-block allocator: out of memory: you tried to allocate " +
                                        std::to_string(bytes) + " bytes");
    }
    auto* record = new cv::UMatData(this);
    record->data = record->origdata = static_cast<uchar*>(block);
    record->size = bytes;
    return record;
  }

  bool allocate(cv::UMatData* record, cv::AccessFlag, cv::UMatUsageFlags) const override {
    return record != nullptr;
  }

  void deallocate(cv::UMatData* record) const override {
    if (record == nullptr) return;
    shared_cache().release(record->origdata);
    delete record;
  }
};

}  // namespace

void install_large_block_allocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (platform::environment_variable("OLV2_LARGE_BLOCK_CACHE") == "0") return;
    tensor_fallback = c10::GetDefaultCPUAllocator();
    // Never destroyed, as the cache.
    c10::SetCPUAllocator(new LargeBlockTensorAllocator);
    cv::Mat::setDefaultAllocator(new LargeBlockMatAllocator);
    large_block_cache_in_use = true;
  });
}

bool large_block_allocator_installed() { return large_block_cache_in_use; }

BlockCache::Stats large_block_stats() {
  return large_block_cache_in_use ? shared_cache().stats() : BlockCache::Stats{};
}

}  // namespace olv2
