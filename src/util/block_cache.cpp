#include "olv2/util/block_cache.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

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
  void* pages = assemble(rounded);
  if (pages != nullptr) {
    ++stats_.assembled;
  } else {
    give_back_beyond(peak_live_bytes_ - stats_.live_bytes - rounded);
    pages = memory_.map(rounded);
    while (pages == nullptr && !kept_by_size_.empty()) {
      unmap_largest_kept();
      pages = memory_.map(rounded);
    }
    if (pages == nullptr) return nullptr;
    ++stats_.mapped;
  }
  live_.emplace(reinterpret_cast<uintptr_t>(pages), rounded);
  stats_.live_bytes += rounded;
  stats_.peak_mapped_bytes =
      std::max(stats_.peak_mapped_bytes, stats_.live_bytes + stats_.kept_bytes);
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

// New pages for `bytes` with the largest kept runs moved onto their front (the last one only in
// part), so only the rest is faulted in; nullptr when pages cannot be moved or none are kept.
void* BlockCache::assemble(size_t bytes) {
  if (!memory_.move || kept_by_size_.empty()) return nullptr;
  std::vector<std::pair<uintptr_t, size_t>> pieces;
  for (size_t taken = 0; taken < bytes && !kept_by_size_.empty();) {
    const auto [size, start] = *std::prev(kept_by_size_.end());
    const size_t part = std::min(size, bytes - taken);
    forget_kept(kept_by_address_.find(start));
    if (part < size) keep(start + part, size - part);
    pieces.emplace_back(start, part);
    taken += part;
  }
  // The pages taken were kept ones, so the bytes mapped do not grow beyond the peak.
  auto* block = static_cast<char*>(memory_.map(bytes));
  if (block == nullptr) {
    for (const auto& [start, size] : pieces) keep(start, size);
    return nullptr;
  }
  size_t offset = 0;
  for (const auto& [start, size] : pieces) {
    // Pages that cannot move go back; the block keeps fresh ones there.
    if (!memory_.move(reinterpret_cast<void*>(start), size, block + offset)) {
      memory_.unmap(reinterpret_cast<void*>(start), size);
    }
    offset += size;
  }
  return block;
}

// Gives kept pages back to the OS until at most `kept_limit` bytes stay kept: the smallest
// blocks first and the last one only in part, from its end, so that the large kept blocks later
// requests can reuse stay.
void BlockCache::give_back_beyond(size_t kept_limit) {
  while (stats_.kept_bytes > kept_limit) {
    const size_t excess = stats_.kept_bytes - kept_limit;
    const auto [bytes, start] = *kept_by_size_.begin();
    if (bytes <= excess) {
      unmap_kept(kept_by_address_.find(start));
      continue;
    }
    forget_kept(kept_by_address_.find(start));
    keep(start, bytes - excess);
    memory_.unmap(reinterpret_cast<void*>(start + bytes - excess), excess);
  }
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
