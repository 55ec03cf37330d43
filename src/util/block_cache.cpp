#include "olv2/util/block_cache.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace olv2 {

BlockCache::BlockCache(Memory memory) : memory_(std::move(memory)) {}

BlockCache::~BlockCache() { trim(); }

void* BlockCache::acquire(size_t bytes) {
  const size_t page = memory_.page_bytes;
  const size_t rounded = std::max<size_t>(1, (bytes + page - 1) / page) * page;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto fit = kept_by_size_.lower_bound(rounded);
  if (fit != kept_by_size_.end()) {
    const uintptr_t start = fit->second;
    const size_t kept = fit->first;
    forget_kept(kept_by_address_.find(start));
    if (kept > rounded) keep(start + rounded, kept - rounded);
    live_.emplace(start, rounded);
    stats_.live_bytes += rounded;
    peak_live_bytes_ = std::max(peak_live_bytes_, stats_.live_bytes);
    ++stats_.reused;
    return reinterpret_cast<void*>(start);
  }
  peak_live_bytes_ = std::max(peak_live_bytes_, stats_.live_bytes + rounded);
  while (!kept_by_size_.empty() &&
         stats_.live_bytes + stats_.kept_bytes + rounded > peak_live_bytes_) {
    unmap_largest_kept();
  }
  void* pages = memory_.map(rounded);
  while (pages == nullptr && !kept_by_size_.empty()) {
    unmap_largest_kept();
    pages = memory_.map(rounded);
  }
  if (pages == nullptr) return nullptr;
  live_.emplace(reinterpret_cast<uintptr_t>(pages), rounded);
  stats_.live_bytes += rounded;
  stats_.peak_mapped_bytes =
      std::max(stats_.peak_mapped_bytes, stats_.live_bytes + stats_.kept_bytes);
  ++stats_.mapped;
  return pages;
}

bool BlockCache::release(void* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto live = live_.find(reinterpret_cast<uintptr_t>(block));
  if (live == live_.end()) return false;
  const auto [start, bytes] = *live;
  live_.erase(live);
  stats_.live_bytes -= bytes;
  keep(start, bytes);
  return true;
}

void BlockCache::trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  while (!kept_by_address_.empty()) unmap_kept(kept_by_address_.begin());
}

BlockCache::Stats BlockCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

// Adds the pages to the kept ones, merged with the kept pages right before and after them.
void BlockCache::keep(uintptr_t start, size_t bytes) {
  const auto after = kept_by_address_.lower_bound(start);
  if (after != kept_by_address_.begin()) {
    const auto before = std::prev(after);
    if (before->first + before->second == start) {
      start = before->first;
      bytes += before->second;
      forget_kept(before);
    }
  }
  if (after != kept_by_address_.end() && after->first == start + bytes) {
    bytes += after->second;
    forget_kept(after);
  }
  kept_by_address_.emplace(start, bytes);
  kept_by_size_.emplace(bytes, start);
  stats_.kept_bytes += bytes;
}

void BlockCache::forget_kept(std::map<uintptr_t, size_t>::iterator kept) {
  auto entry = kept_by_size_.lower_bound(kept->second);
  while (entry->second != kept->first) ++entry;
  kept_by_size_.erase(entry);
  stats_.kept_bytes -= kept->second;
  kept_by_address_.erase(kept);
}

void BlockCache::unmap_largest_kept() {
  unmap_kept(kept_by_address_.find(std::prev(kept_by_size_.end())->second));
}

void BlockCache::unmap_kept(std::map<uintptr_t, size_t>::iterator kept) {
  const auto [start, bytes] = *kept;
  forget_kept(kept);
  memory_.unmap(reinterpret_cast<void*>(start), bytes);
}

}  // namespace olv2
