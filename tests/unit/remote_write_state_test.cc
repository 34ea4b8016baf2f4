// Remote write's per-series state and queues: changed-only with resend, the series that leave,
// queue bounds in samples and bytes, and the lag origin.
#include <gtest/gtest.h>

#include <set>

#include "ibpulse/exporters/remote_write/change_filter.h"
#include "ibpulse/exporters/remote_write/shard_queue.h"

namespace ibpulse::exporters::remote_write {
namespace {

using namespace std::chrono_literals;

TEST(RemoteWriteChangeFilter, SendsChangesAndResendsUnchangedOnlyAfterTheInterval) {
  ChangeFilter f(true, 60);
  f.begin(0);
  EXPECT_TRUE(f.offer(11, 1.0));  // new
  EXPECT_TRUE(f.finish().empty());
  f.begin(1);
  EXPECT_FALSE(f.offer(11, 1.0));  // unchanged
  f.finish();
  f.begin(2);
  EXPECT_TRUE(f.offer(11, 2.0));  // changed
  f.finish();
  f.begin(61);
  EXPECT_FALSE(f.offer(11, 2.0));  // 59 s since sent
  f.finish();
  f.begin(62);
  EXPECT_TRUE(f.offer(11, 2.0));  // 60 s: resent
  f.finish();
}

TEST(RemoteWriteChangeFilter, WithoutChangedOnlyEverythingGoesEveryTime) {
  ChangeFilter f(false, 60);
  for (uint32_t t = 0; t < 3; ++t) {
    f.begin(t);
    EXPECT_TRUE(f.offer(5, 1.0));
    f.finish();
  }
}

TEST(RemoteWriteChangeFilter, AnUnqueuedSampleIsOfferedAgain) {
  ChangeFilter f(true, 60);
  f.begin(0);
  ASSERT_TRUE(f.offer(7, 3.0));
  f.unsent(7);
  f.finish();
  f.begin(1);
  EXPECT_TRUE(f.offer(7, 3.0));
}

TEST(RemoteWriteChangeFilter, FindsTheSeriesThatLeftAmongMany) {
  ChangeFilter f(true, 60);
  f.begin(0);
  for (uint64_t k = 1; k <= 100'000; ++k)
    f.offer(k * 0x9E3779B97F4A7C15ULL, 1.0);  // grows the table many times
  EXPECT_TRUE(f.finish().empty());
  f.begin(1);
  std::set<uint64_t> expected;
  for (uint64_t k = 1; k <= 100'000; ++k) {
    if (k % 7 == 0) {
      expected.insert(ChangeFilter::normal(k * 0x9E3779B97F4A7C15ULL));
    } else {
      EXPECT_FALSE(f.offer(k * 0x9E3779B97F4A7C15ULL, 1.0)) << k;  // still known after erases
    }
  }
  const auto gone = f.finish();
  EXPECT_EQ(std::set<uint64_t>(gone.begin(), gone.end()), expected);
  EXPECT_EQ(f.size(), 100'000u - expected.size());
  f.begin(2);
  for (uint64_t k = 1; k <= 100'000; ++k) {
    if (k % 7 != 0) {
      EXPECT_FALSE(f.offer(k * 0x9E3779B97F4A7C15ULL, 1.0)) << k;
    }
  }
  EXPECT_TRUE(f.finish().empty());       // those gone are reported once
  EXPECT_LE(f.bytes() / f.size(), 29u);  // the memory the header promises: 16 x 10/7 x 1.25

  // Half of them leave: the table shrinks to 10/7 of the rest (not a power of two), and every
  // series left is still found, the ones that leave next too.
  const auto kept = [](uint64_t k) { return k % 7 != 0 && k % 2 == 0; };
  f.begin(3);
  for (uint64_t k = 1; k <= 100'000; ++k) {
    if (kept(k)) f.offer(k * 0x9E3779B97F4A7C15ULL, 1.0);
  }
  const size_t left = f.finish().size();
  EXPECT_EQ(left + f.size(), 100'000u - expected.size());
  EXPECT_GT(left, 40'000u);
  EXPECT_EQ(f.bytes() / 16, f.size() * 10 / 7) << "resized to 0.7 full";
  f.begin(4);
  size_t offered = 0;
  for (uint64_t k = 1; k <= 100'000; ++k) {
    if (!kept(k) || k % 3 == 0) continue;
    EXPECT_FALSE(f.offer(k * 0x9E3779B97F4A7C15ULL, 1.0)) << k;
    ++offered;
  }
  const size_t before = f.size();
  EXPECT_EQ(f.finish().size(), before - offered);
  f.begin(5);
  for (uint64_t k = 1; k <= 100'000; ++k) {
    if (kept(k) && k % 3 != 0) {
      EXPECT_FALSE(f.offer(k * 0x9E3779B97F4A7C15ULL, 1.0)) << k;
    }
  }
  EXPECT_TRUE(f.finish().empty());
}

Sample sample(const std::string& series) {
  return {series, 1.0, 0};
}

TEST(RemoteWriteShardQueue, BoundedInSamples) {
  ShardQueue q(3, 1 << 20);
  EXPECT_TRUE(q.push(sample("a"), 1));
  EXPECT_TRUE(q.push(sample("b"), 1));
  EXPECT_TRUE(q.push(sample("c"), 1));
  EXPECT_FALSE(q.push(sample("d"), 1));
  const auto batch = q.take(2, 0ms);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].series, "a");
  EXPECT_FALSE(q.push(sample("d"), 1));  // taken but not acknowledged still counts
  q.acknowledge();
  EXPECT_TRUE(q.push(sample("d"), 2));
  EXPECT_EQ(q.samples(), 2u);
}

TEST(RemoteWriteShardQueue, BoundedInBytes) {
  const std::string big(1000, 'x');
  const size_t cost = ShardQueue::cost(sample(big));
  ShardQueue q(1000, 2 * cost + 10);
  EXPECT_TRUE(q.push(sample(big), 1));
  EXPECT_TRUE(q.push(sample(big), 1));
  EXPECT_FALSE(q.push(sample(big), 1));
  EXPECT_TRUE(q.push(sample("small"), 1) == (ShardQueue::cost(sample("small")) <= 10));
  EXPECT_LE(q.bytes(), 2 * cost + 10);
}

TEST(RemoteWriteShardQueue, LagOriginIsTheOldestUnacknowledgedSnapshot) {
  ShardQueue q(100, 1 << 20);
  EXPECT_EQ(q.lag_origin_ms(), 0);
  q.note_snapshot(1000);  // nothing for this shard: acknowledged at once
  EXPECT_EQ(q.lag_origin_ms(), 1000);
  q.push(sample("a"), 2000);
  q.push(sample("b"), 3000);
  EXPECT_EQ(q.lag_origin_ms(), 2000);
  q.take(1, 0ms);
  EXPECT_EQ(q.lag_origin_ms(), 2000);  // in flight
  q.acknowledge();
  EXPECT_EQ(q.lag_origin_ms(), 3000);
  q.take(10, 0ms);
  q.acknowledge();
  EXPECT_EQ(q.lag_origin_ms(), 3000);
  q.note_snapshot(4000);
  EXPECT_EQ(q.lag_origin_ms(), 4000);
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write
