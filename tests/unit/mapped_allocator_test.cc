// MappedAllocator: large blocks start on a 2 MiB boundary (huge pages back only aligned
// ranges), are counted while mapped and given back when freed; small ones are 64-byte aligned.
#include "ibpulse/converters/mapped_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ibpulse::converters {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(MappedAllocator, LargeBlocksAreHugePageAlignedCountedAndReturned) {
  MappedAllocator<char> a;
  const size_t before = detail::mapped_bytes();
  char* p = a.allocate(3 * kMiB);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2 * kMiB), 0u);
  EXPECT_EQ(detail::mapped_bytes() - before, 4 * kMiB) << "rounded up to whole huge pages";
  p[0] = 1;
  p[3 * kMiB - 1] = 2;  // the whole block is writable
  a.deallocate(p, 3 * kMiB);
  EXPECT_EQ(detail::mapped_bytes(), before);
}

TEST(MappedAllocator, SmallBlocksAreCacheLineAlignedAndNotMapped) {
  MappedAllocator<char> a;
  const size_t before = detail::mapped_bytes();
  char* p = a.allocate(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(detail::mapped_bytes(), before);
  a.deallocate(p, 100);
}

}  // namespace
}  // namespace ibpulse::converters
