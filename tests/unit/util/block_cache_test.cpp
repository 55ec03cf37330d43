// The large-block cache: released pages come back for the same and for smaller sizes, kept
// neighbours merge, larger requests are made of kept pages moved together, no page is handed out
// twice or unmapped while not mapped, the bytes mapped never exceed the most ever in use at once
// and go back smallest block first, the OS running out is survived where it can be, and threads
// can share it.
#include "olv2/util/block_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace olv2 {
namespace {

constexpr size_t kPage = 4096;

// An address space of `pages` pages: map takes the first free run, unmap takes back any run of
// mapped pages (and fails the test for a page that is not mapped), move carries a run's bytes
// onto mapped pages and unmaps the run (unless moves are refused), with an optional limit on
// the pages mapped at once.
class FakePages {
 public:
  explicit FakePages(size_t pages) : memory_(pages * kPage), mapped_(pages, false) {}

  // Without moves: as on an OS that cannot move pages.
  BlockCache::Memory memory(bool with_moves = true) {
    BlockCache::Memory memory{[this](size_t bytes) { return map(bytes); },
                              [this](void* pages, size_t bytes) { unmap(pages, bytes); },
                              kPage,
                              {}};
    if (with_moves) {
      memory.move = [this](void* from, size_t bytes, void* to) { return move(from, bytes, to); };
    }
    return memory;
  }

  size_t mapped_bytes() const { return mapped_count_ * kPage; }
  size_t page_index(const void* block) const {
    return static_cast<size_t>(static_cast<const char*>(block) - memory_.data()) / kPage;
  }
  int64_t unmaps() const { return unmaps_; }
  int64_t moves() const { return moves_; }
  size_t limit_pages = SIZE_MAX;
  bool refuse_moves = false;

 private:
  void* map(size_t bytes) {
    const size_t count = bytes / kPage;
    if (mapped_count_ + count > limit_pages) return nullptr;
    for (size_t first = 0; first + count <= mapped_.size(); ++first) {
      size_t run = 0;
      while (run < count && !mapped_[first + run]) ++run;
      if (run == count) {
        for (size_t p = first; p < first + count; ++p) mapped_[p] = true;
        mapped_count_ += count;
        return memory_.data() + first * kPage;
      }
      first += run;
    }
    return nullptr;
  }

  void unmap(void* pages, size_t bytes) {
    const size_t first = static_cast<size_t>(static_cast<char*>(pages) - memory_.data()) / kPage;
    for (size_t p = first; p < first + bytes / kPage; ++p) {
      EXPECT_TRUE(mapped_[p]) << "page " << p << " unmapped but not mapped";
      mapped_[p] = false;
    }
    mapped_count_ -= bytes / kPage;
    ++unmaps_;
  }

  bool move(void* from, size_t bytes, void* to) {
    if (refuse_moves) return false;
    const size_t first = page_index(from), target = page_index(to);
    for (size_t p = 0; p < bytes / kPage; ++p) {
      EXPECT_TRUE(mapped_[first + p]) << "page " << first + p << " moved but not mapped";
      EXPECT_TRUE(mapped_[target + p]) << "page " << target + p << " moved onto but not mapped";
    }
    std::memmove(to, from, bytes);
    unmap(from, bytes);
    --unmaps_;
    ++moves_;
    return true;
  }

  std::vector<char> memory_;
  std::vector<bool> mapped_;
  size_t mapped_count_ = 0;
  int64_t unmaps_ = 0;
  int64_t moves_ = 0;
};

TEST(BlockCache, AReleasedBlockServesTheNextRequestOfItsSize) {
  FakePages os(64);
  BlockCache cache(os.memory());
  void* first = cache.acquire(3 * kPage - 10);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(cache.stats().live_bytes, 3 * kPage);
  EXPECT_TRUE(cache.release(first));
  EXPECT_EQ(cache.stats().kept_bytes, 3 * kPage);
  EXPECT_EQ(cache.acquire(3 * kPage), first);
  const BlockCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.reused, 1);
  EXPECT_EQ(stats.mapped, 1);
  EXPECT_EQ(stats.kept_bytes, 0u);
  EXPECT_TRUE(cache.release(first));
}

TEST(BlockCache, ASmallerRequestTakesTheFrontOfTheSmallestKeptBlockThatHoldsIt) {
  FakePages os(64);
  BlockCache cache(os.memory());
  auto* large = static_cast<char*>(cache.acquire(16 * kPage));
  void* between = cache.acquire(kPage);  // keeps the two apart
  auto* middle = static_cast<char*>(cache.acquire(6 * kPage));
  cache.release(large);
  cache.release(middle);
  EXPECT_EQ(cache.acquire(4 * kPage), middle);  // 6 pages hold 4: not the 16
  EXPECT_EQ(cache.stats().kept_bytes, 18 * kPage);
  EXPECT_EQ(cache.acquire(2 * kPage), middle + 4 * kPage);
  EXPECT_EQ(cache.acquire(10 * kPage), large);
  EXPECT_EQ(cache.stats().kept_bytes, 6 * kPage);
  EXPECT_EQ(cache.stats().mapped, 3);
  cache.release(between);
}

TEST(BlockCache, KeptNeighboursMergeIntoOneBlock) {
  FakePages os(64);
  BlockCache cache(os.memory());
  auto* whole = static_cast<char*>(cache.acquire(12 * kPage));
  cache.release(whole);
  void* a = cache.acquire(4 * kPage);
  void* b = cache.acquire(4 * kPage);
  void* c = cache.acquire(4 * kPage);
  EXPECT_EQ(cache.stats().kept_bytes, 0u);
  cache.release(a);
  cache.release(c);
  cache.release(b);  // joins both
  EXPECT_EQ(cache.acquire(12 * kPage), whole);
  EXPECT_EQ(cache.stats().mapped, 1);
}

TEST(BlockCache, NoPageIsHandedOutTwiceAndTheBytesMappedNeverExceedThePeakInUse) {
  FakePages os(20000);
  BlockCache cache(os.memory());
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> pages(1, 64);
  std::vector<void*> live;
  std::vector<size_t> sizes;  // pages of each live block
  size_t peak_live = 0;
  for (int i = 0; i < 5000; ++i) {
    if (live.empty() || rng() % 2 == 0) {
      const size_t count = pages(rng);
      void* block = cache.acquire(count * kPage);
      ASSERT_NE(block, nullptr);
      live.push_back(block);
      sizes.push_back(count);
    } else {
      const size_t victim = rng() % live.size();
      ASSERT_TRUE(cache.release(live[victim]));
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
      sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    std::vector<bool> owned(20000, false);
    for (size_t k = 0; k < live.size(); ++k) {
      for (size_t p = os.page_index(live[k]); p < os.page_index(live[k]) + sizes[k]; ++p) {
        ASSERT_FALSE(owned[p]) << "step " << i << ": page " << p << " in two live blocks";
        owned[p] = true;
      }
    }
    const BlockCache::Stats stats = cache.stats();
    peak_live = std::max(peak_live, stats.live_bytes);
    ASSERT_EQ(os.mapped_bytes(), stats.live_bytes + stats.kept_bytes) << "step " << i;
    ASSERT_LE(os.mapped_bytes(), peak_live) << "step " << i;
  }
  EXPECT_GT(cache.stats().reused, cache.stats().mapped);
  EXPECT_GT(cache.stats().assembled, 0);
  for (void* block : live) cache.release(block);
  cache.trim();
  EXPECT_EQ(os.mapped_bytes(), 0u);
}

// Two kept blocks of 6 and 4 pages, apart: a request for 10 takes both, moved together.
struct TwoKeptBlocks {
  explicit TwoKeptBlocks(FakePages& os) : cache(os.memory()) {
    six = static_cast<char*>(cache.acquire(6 * kPage));
    apart[0] = cache.acquire(kPage);
    four = static_cast<char*>(cache.acquire(4 * kPage));
    apart[1] = cache.acquire(kPage);
    std::memset(six, 6, 6 * kPage);
    std::memset(four, 4, 4 * kPage);
    cache.release(six);
    cache.release(four);
  }
  ~TwoKeptBlocks() {
    for (void* block : apart) cache.release(block);
  }
  BlockCache cache;
  char* six = nullptr;
  char* four = nullptr;
  void* apart[2] = {};
};

TEST(BlockCache, ARequestNoKeptBlockHoldsIsMadeOfKeptPagesMovedTogether) {
  FakePages os(64);
  TwoKeptBlocks blocks(os);
  auto* whole = static_cast<char*>(blocks.cache.acquire(10 * kPage));
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(os.moves(), 2);
  // The kept pages themselves, contents and all, largest first: nothing was faulted in afresh.
  EXPECT_EQ(whole[0], 6);
  EXPECT_EQ(whole[6 * kPage - 1], 6);
  EXPECT_EQ(whole[6 * kPage], 4);
  EXPECT_EQ(whole[10 * kPage - 1], 4);
  const BlockCache::Stats stats = blocks.cache.stats();
  EXPECT_EQ(stats.assembled, 1);
  EXPECT_EQ(stats.kept_bytes, 0u);
  EXPECT_EQ(os.mapped_bytes(), stats.live_bytes);  // 12 pages: the most ever in use
  blocks.cache.release(whole);
}

TEST(BlockCache, PagesThatCannotMoveGoBackAndTheBlockGetsFreshOnes) {
  FakePages os(64);
  os.refuse_moves = true;
  TwoKeptBlocks blocks(os);
  auto* whole = static_cast<char*>(blocks.cache.acquire(10 * kPage));
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(os.moves(), 0);
  const BlockCache::Stats stats = blocks.cache.stats();
  EXPECT_EQ(stats.kept_bytes, 0u);
  EXPECT_EQ(os.mapped_bytes(), stats.live_bytes);
  std::memset(whole, 1, 10 * kPage);  // every page of it is mapped
  blocks.cache.release(whole);
}

TEST(BlockCache, WithoutMovesTheSmallestKeptBlocksGoBackFirstAndOnlyWhatThePeakNeeds) {
  FakePages os(64);
  BlockCache cache(os.memory(/*with_moves=*/false));
  void* two = cache.acquire(2 * kPage);
  void* apart = cache.acquire(kPage);
  auto* eight = static_cast<char*>(cache.acquire(8 * kPage));
  void* rest = cache.acquire(7 * kPage);  // 18 pages in use: the peak
  cache.release(two);
  cache.release(eight);
  cache.release(rest);                     // joins the 8: kept 2 and 15, 1 in use
  void* more = cache.acquire(16 * kPage);  // fresh: 17 in use, so 1 kept page may stay
  ASSERT_NE(more, nullptr);
  EXPECT_EQ(cache.stats().mapped, 5);
  EXPECT_EQ(cache.stats().kept_bytes, kPage);
  EXPECT_EQ(os.mapped_bytes(), 18 * kPage);
  EXPECT_EQ(cache.acquire(kPage), eight);  // the front of the 15 stayed, the 2 went
  cache.release(more);
  cache.release(apart);
}

TEST(BlockCache, WhenTheOsRunsOutKeptBlocksAreGivenBackFirst) {
  FakePages os(64);
  os.limit_pages = 10;
  BlockCache cache(os.memory());
  void* a = cache.acquire(4 * kPage);
  void* b = cache.acquire(2 * kPage);
  void* c = cache.acquire(2 * kPage);
  cache.release(b);
  cache.release(c);  // 4 kept pages in one block: too few for 6
  void* d = cache.acquire(6 * kPage);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(cache.stats().kept_bytes, 0u);
  EXPECT_EQ(cache.acquire(kPage), nullptr);  // 10 pages live: nothing left to give back
  cache.release(a);
  cache.release(d);
}

TEST(BlockCache, OnlyItsOwnBlocksAreTakenBack) {
  FakePages os(8);
  BlockCache cache(os.memory());
  int unrelated = 0;
  EXPECT_FALSE(cache.release(&unrelated));
  void* block = cache.acquire(kPage);
  EXPECT_TRUE(cache.release(block));
  EXPECT_FALSE(cache.release(block));  // already back
}

TEST(BlockCache, ThreadsShareIt) {
  FakePages os(4096);
  BlockCache cache(os.memory());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        const size_t bytes = static_cast<size_t>(1 + (i + t) % 5) * kPage;
        auto* block = static_cast<char*>(cache.acquire(bytes));
        ASSERT_NE(block, nullptr);
        std::fill(block, block + bytes, static_cast<char>(t));
        std::this_thread::yield();
        EXPECT_EQ(block[0], static_cast<char>(t));
        EXPECT_EQ(block[bytes - 1], static_cast<char>(t));
        cache.release(block);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cache.stats().live_bytes, 0u);
  EXPECT_EQ(os.mapped_bytes(), cache.stats().kept_bytes);
}

}  // namespace
}  // namespace olv2
