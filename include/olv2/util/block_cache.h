#pragma once
// A cache of large page-backed memory blocks that reuses freed blocks and never maps more than the
// peak in use.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

namespace olv2 {

// A cache of large memory blocks made of whole pages from the OS. A released block is kept and
// handed out again, whole or in part: a request takes the smallest kept block that holds it
// and leaves the rest kept, and kept neighbours merge. So a loop that allocates the same sizes
// every iteration (a training step, a sample's pipeline) stops page-faulting fresh memory, and
// since any run of kept pages can go back to the OS, a freed block never pins memory the way a
// hole in a heap does. A request no kept block holds is made of the largest kept blocks moved
// together where the OS can move pages (Linux), the rest fresh, so it faults in only what the
// kept pages cannot cover. The bytes mapped never exceed the most ever in use at once: when new
// pages would pass that peak, kept pages go back to the OS first, the smallest blocks first and
// the last one only in part (a looser bound only adds memory: BENCHMARKS.md). Thread-safe.
class BlockCache {
 public:
  struct Memory {
    std::function<void*(size_t bytes)> map;  // nullptr when out of memory
    std::function<void(void* pages, size_t bytes)> unmap;
    size_t page_bytes = 4096;
    // Moves mapped pages onto other mapped pages (platform::move_pages); empty: never moves.
    std::function<bool(void* from, size_t bytes, void* to)> move;
  };

  struct Stats {
    size_t live_bytes = 0;  // in blocks handed out
    size_t kept_bytes = 0;  // in released pages kept for reuse
    size_t peak_mapped_bytes = 0;
    int64_t reused = 0;     // requests served from kept pages
    int64_t mapped = 0;     // requests served by new pages
    int64_t assembled = 0;  // requests served by kept pages moved together (and new ones)
  };

  explicit BlockCache(Memory memory);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A block of at least `bytes`, page-aligned; nullptr when the OS has no memory left even
  // after every kept page was given back.
  void* acquire(size_t bytes);
  // Takes back a block from acquire(). Returns false (and does nothing) for any other pointer.
  bool release(void* block);
  // Gives every kept page back to the OS.
  void trim();
  Stats stats() const;

 private:
  void keep(uintptr_t start, size_t bytes);
  void forget_kept(std::map<uintptr_t, size_t>::iterator kept);
  void unmap_kept(std::map<uintptr_t, size_t>::iterator kept);
  void* assemble(size_t bytes);
  void give_back_beyond(size_t kept_limit);
  void unmap_largest_kept();

  Memory memory_;
  mutable std::mutex mutex_;
  std::unordered_map<uintptr_t, size_t> live_;
  std::map<uintptr_t, size_t> kept_by_address_;
  std::multimap<size_t, uintptr_t> kept_by_size_;
  Stats stats_;
  size_t peak_live_bytes_ = 0;
};

}  // namespace olv2
