// HeapTrim: the policy (trim once a peak has fallen to a quarter, peaks from a floor) and that
// trim_heap() really gives scattered free memory back to the system, read from /proc as RSS.
#include "ibpulse/base/heap_trim.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace ibpulse {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(HeapTrim, TrimsOnceAPeakFellToAQuarter) {
  HeapTrim t(64 * kMiB);
  EXPECT_FALSE(t.note(10 * kMiB));
  EXPECT_FALSE(t.note(0)) << "a peak below the floor is no peak";
  EXPECT_FALSE(t.note(200 * kMiB));
  EXPECT_FALSE(t.note(51 * kMiB)) << "above a quarter of the peak";
  EXPECT_EQ(t.peak(), 200 * kMiB);
  EXPECT_TRUE(t.note(50 * kMiB));
  EXPECT_EQ(t.peak(), 50 * kMiB) << "the peak starts again from now";
  EXPECT_FALSE(t.note(1 * kMiB)) << "once per peak";
  EXPECT_FALSE(t.due(0));
  t.observe(100 * kMiB);  // a high point: kept, never trims
  EXPECT_EQ(t.peak(), 100 * kMiB);
  EXPECT_FALSE(t.due(26 * kMiB));
  EXPECT_TRUE(t.note(25 * kMiB));
}

size_t rss_bytes() {
  std::ifstream status("/proc/self/statm");
  size_t pages = 0;
  size_t resident = 0;
  status >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Many small strings, as a remote-write queue holds; all but every 64th freed, so the free
// memory is scattered between live chunks, where glibc does not give it back by itself.
TEST(HeapTrim, GivesScatteredFreeMemoryBack) {
  std::vector<std::unique_ptr<std::string>> strings;
  for (size_t i = 0; i < 400'000; ++i)
    strings.push_back(std::make_unique<std::string>(200, 'x'));  // ~90 MB with their chunks
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i % 64 != 0) strings[i].reset();
  }
  const size_t before = rss_bytes();
  ASSERT_TRUE(trim_heap());
  const size_t after = rss_bytes();
  EXPECT_LT(after + 40 * kMiB, before) << "before " << before << " after " << after;
}

}  // namespace
}  // namespace ibpulse
