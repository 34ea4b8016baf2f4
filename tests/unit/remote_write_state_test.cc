// Remote write's per-series state and queues: changed-only with resend, the series that leave,
// queue bounds in samples and bytes, and the lag origin.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ibpulse/exporters/remote_write/change_filter.h"
#include "ibpulse/exporters/remote_write/shard_queue.h"
#include "remote_write_decode.h"

namespace ibpulse::exporters::remote_write {
namespace {

using namespace std::chrono_literals;

// A series key as series_hash gives them: spread over all 64 bits.
uint64_t key_of(uint64_t k) {
  return k * 0x9E3779B97F4A7C15ULL;
}

TEST(RemoteWriteChangeFilter, SendsChangesAndNotUnchangedSeries) {
  ChangeFilter f(true, UINT32_MAX);  // no resend within the test
  f.begin(0);
  EXPECT_TRUE(f.offer("a", key_of(11), 1.0));  // new
  EXPECT_TRUE(f.finish().empty());
  f.begin(1);
  EXPECT_FALSE(f.offer("a", key_of(11), 1.0));  // unchanged
  f.finish();
  f.begin(2);
  EXPECT_TRUE(f.offer("a", key_of(11), 2.0));  // changed
  f.finish();
  f.begin(3);
  EXPECT_FALSE(f.offer("a", key_of(11), 2.0));
  f.finish();
}

// Every unchanged series goes out once per resend interval, never more than the interval apart,
// and the resends of many series spread over it.
TEST(RemoteWriteChangeFilter, ResendsEachUnchangedSeriesOncePerIntervalSpreadOverIt) {
  constexpr uint32_t kResend = 60;
  constexpr uint32_t kSeries = 6000;
  constexpr uint32_t kSeconds = 600;
  ChangeFilter f(true, kResend);
  std::vector<uint32_t> last_sent(kSeries, 0);
  std::vector<uint32_t> sends(kSeries, 0);
  size_t busiest = 0;
  for (uint32_t t = 0; t < kSeconds; ++t) {
    f.begin(t);
    size_t sent_now = 0;
    for (uint32_t k = 0; k < kSeries; ++k) {
      if (!f.offer("a", key_of(k + 1), 5.0)) continue;
      if (t > 0) {
        EXPECT_LE(t - last_sent[k], kResend) << k;
        // After the first resend (at its phase), exactly one per interval.
        if (sends[k] >= 2) {
          EXPECT_EQ(t - last_sent[k], kResend) << k;
        }
        ++sent_now;
      }
      last_sent[k] = t;
      ++sends[k];
    }
    f.finish();
    busiest = std::max(busiest, sent_now);
    if (t >= kResend) {
      for (uint32_t k = 0; k < kSeries; ++k)
        ASSERT_LE(t - last_sent[k], kResend) << k;
    }
  }
  for (uint32_t k = 0; k < kSeries; ++k) {
    EXPECT_GE(sends[k], kSeconds / kResend) << k;
    EXPECT_LE(sends[k], kSeconds / kResend + 1) << k;
  }
  EXPECT_LT(busiest, 2 * kSeries / kResend) << "resends come in bursts";
}

// The writer puts a series on shard queue (key >> 32) % concurrency: the resends of one
// snapshot (one phase) must not all land on one of them.
TEST(RemoteWriteChangeFilter, OneSnapshotsResendsSpreadOverTheShardQueues) {
  constexpr uint64_t kSeries = 6000;
  constexpr uint64_t kShards = 4;
  ChangeFilter f(true, 60);
  f.begin(0);
  for (uint64_t k = 1; k <= kSeries; ++k)
    f.offer("a", key_of(k), 1.0);
  f.finish();
  f.begin(1);
  std::array<size_t, kShards> per_shard{};
  size_t resent = 0;
  for (uint64_t k = 1; k <= kSeries; ++k) {
    if (!f.offer("a", key_of(k), 1.0)) continue;
    ++per_shard[(key_of(k) >> 32) % kShards];
    ++resent;
  }
  ASSERT_GT(resent, kSeries / 60 / 2);
  for (size_t n : per_shard)
    EXPECT_GT(n, resent / kShards / 2) << resent << " resends";
}

TEST(RemoteWriteChangeFilter, ALongGapBetweenSnapshotsResendsEverything) {
  ChangeFilter f(true, 60);
  f.begin(0);
  for (uint64_t k = 1; k <= 100; ++k)
    f.offer("a", key_of(k), 1.0);
  f.finish();
  f.begin(60);
  for (uint64_t k = 1; k <= 100; ++k)
    EXPECT_TRUE(f.offer("a", key_of(k), 1.0)) << k;
}

TEST(RemoteWriteChangeFilter, WithoutChangedOnlyEverythingGoesEveryTime) {
  ChangeFilter f(false, 60);
  for (uint32_t t = 0; t < 3; ++t) {
    f.begin(t);
    EXPECT_TRUE(f.offer("a", key_of(5), 1.0));
    f.finish();
  }
}

TEST(RemoteWriteChangeFilter, AnUnqueuedSampleIsOfferedAgain) {
  ChangeFilter f(true, UINT32_MAX);  // no resend within the test
  f.begin(0);
  ASSERT_TRUE(f.offer("a", key_of(7), 3.0));
  f.unsent();
  ASSERT_TRUE(f.offer("a", key_of(8), 3.0));
  f.finish();
  f.begin(1);
  EXPECT_TRUE(f.offer("a", key_of(7), 3.0));
  EXPECT_FALSE(f.offer("a", key_of(8), 3.0));
}

// One snapshot's series, family by family, in order.
using Listing = std::vector<std::pair<std::string, uint64_t>>;

// Offers every series of `now` at value 1 and returns those sent; `gone` gets the ones that
// left, as the walk over the previous listing finds them.
std::set<uint64_t> offer_all(ChangeFilter& f, uint32_t t, const Listing& now, const Listing& before,
                             std::set<uint64_t>* gone) {
  f.begin(t);
  std::set<uint64_t> sent;
  for (const auto& [family, key] : now) {
    if (f.offer(family, key, 1.0)) sent.insert(key);
  }
  const GoneSeries left = f.finish();
  GoneSeries::Walk walk(left);
  size_t found = 0;
  for (const auto& [family, key] : before) {
    if (walk.left(family)) {
      if (gone != nullptr) gone->insert(key);
      ++found;
    }
  }
  EXPECT_EQ(found, left.size());
  return sent;
}

Listing listing(const std::vector<std::string>& families, uint64_t ports,
                const std::function<bool(uint64_t)>& has) {
  Listing out;
  for (size_t f = 0; f < families.size(); ++f) {
    for (uint64_t p = 1; p <= ports; ++p) {
      // The key depends on the family's name, not its place in this listing.
      if (has(p))
        out.emplace_back(families[f], key_of(p * 16 + static_cast<uint64_t>(families[f][0] - 'x')));
    }
  }
  return out;
}

// Ports leave and come in the middle of each family, a family leaves: the state follows, the
// series still there stay known (not sent again) and exactly those that left are reported.
TEST(RemoteWriteChangeFilter, FindsTheSeriesThatLeftAndKeepsTheRest) {
  const std::vector<std::string> families = {"x_total", "y", "z_total"};
  const auto all = [](uint64_t) { return true; };
  ChangeFilter f(true, UINT32_MAX);  // no resend within the test
  const Listing first = listing(families, 20'000, all);
  EXPECT_EQ(offer_all(f, 0, first, {}, nullptr).size(), first.size());
  EXPECT_EQ(f.size(), first.size());
  EXPECT_LE(f.bytes(), f.size() * 8 * 9 / 8) << "8 bytes per series";

  // Every 7th port leaves, and a block of 1,000 in the middle.
  const auto second_has = [](uint64_t p) { return p % 7 != 0 && (p < 5000 || p >= 6000); };
  const Listing second = listing(families, 20'000, second_has);
  std::set<uint64_t> gone;
  EXPECT_TRUE(offer_all(f, 1, second, first, &gone).empty());
  std::set<uint64_t> expected;
  for (const auto& [family, key] : first)
    expected.insert(key);
  for (const auto& [family, key] : second)
    expected.erase(key);
  EXPECT_EQ(gone, expected);
  EXPECT_EQ(f.size(), second.size());

  // Ports come back, new ones come, family y leaves: only the new series are sent.
  const auto third_has = [](uint64_t p) { return p % 7 != 0 || p % 3 == 0; };
  Listing third = listing({"x_total", "z_total"}, 22'000, third_has);
  gone.clear();
  const auto sent = offer_all(f, 2, third, second, &gone);
  std::set<uint64_t> second_keys;
  std::set<uint64_t> expected_sent;
  for (const auto& [family, key] : second)
    second_keys.insert(key);
  for (const auto& [family, key] : third) {
    if (!second_keys.contains(key)) expected_sent.insert(key);
  }
  EXPECT_EQ(sent, expected_sent);
  expected = second_keys;
  for (const auto& [family, key] : third)
    expected.erase(key);
  EXPECT_EQ(gone, expected);
  EXPECT_EQ(gone.size(), listing({"y"}, 20'000, second_has).size());  // y only

  // The state after the rebuild is in order again: nothing changes, nothing is sent or gone.
  gone.clear();
  EXPECT_TRUE(offer_all(f, 3, third, third, &gone).empty());
  EXPECT_TRUE(gone.empty());
  EXPECT_EQ(f.size(), third.size());
  EXPECT_LE(f.bytes(), f.size() * 8 * 9 / 8);
}

TEST(RemoteWriteChangeFilter, TheLastSeriesOfAFamilyLeaving) {
  ChangeFilter f(true, UINT32_MAX);
  const Listing before = {{"a", key_of(1)}, {"a", key_of(2)}, {"a", key_of(3)}, {"b", key_of(4)}};
  offer_all(f, 0, before, {}, nullptr);
  std::set<uint64_t> gone;
  const Listing after = {{"a", key_of(1)}, {"a", key_of(2)}, {"b", key_of(4)}};
  EXPECT_TRUE(offer_all(f, 1, after, before, &gone).empty());
  EXPECT_EQ(gone, std::set<uint64_t>{key_of(3)});
  EXPECT_EQ(f.size(), 3u);
}

// Two series whose kept hash bits are equal (series_hash differs above them) are told apart by
// position, also when the family is rebuilt. (One of them leaving while the other moves can
// swap them: 2^-32 per series that leaves.)
TEST(RemoteWriteChangeFilter, SeriesSharingTheirCheckBitsAreToldApartByPosition) {
  const uint64_t a = 0x1111'0000'0000'0042ULL;
  const uint64_t b = 0x2222'0000'0000'0042ULL;
  const uint64_t c = 0x3333'0000'0000'0099ULL;
  ChangeFilter f(true, UINT32_MAX);  // no resend within the test
  f.begin(0);
  f.offer("x", a, 1.0);
  f.offer("x", b, 2.0);
  f.finish();
  f.begin(1);
  EXPECT_TRUE(f.offer("x", c, 3.0));  // new, first: the family is rebuilt
  EXPECT_FALSE(f.offer("x", a, 1.0));
  EXPECT_FALSE(f.offer("x", b, 2.0));
  EXPECT_TRUE(f.finish().empty());

  // a and y leave; b, looked up after c, is taken for itself, not for a before it.
  const uint64_t y = 0x4444'0000'0000'0077ULL;
  ChangeFilter g(true, UINT32_MAX);
  const Listing before = {{"x", a}, {"x", c}, {"x", y}, {"x", b}};
  offer_all(g, 0, before, {}, nullptr);
  std::set<uint64_t> gone;
  EXPECT_TRUE(offer_all(g, 1, {{"x", c}, {"x", b}}, before, &gone).empty());
  EXPECT_EQ(gone, (std::set<uint64_t>{a, y}));
}

Sample sample(const std::string& series) {
  return {series, 1.0, 0};
}

// The series of a request body, in order.
std::vector<std::string> series_of(const ShardQueue::Request& r) {
  testing::WriteRequest req;
  EXPECT_TRUE(testing::decode_write_request(r.body, req));
  std::vector<std::string> out;
  for (const auto& ts : req.timeseries())
    out.push_back(testing::label_of(ts, "__name__"));
  return out;
}

TEST(RemoteWriteShardQueue, RequestsOfBatchSizeOrOfACompleteSnapshot) {
  ShardQueue q(100, 1 << 20, 2, {{"cluster", "c1"}});
  for (const char* name : {"a", "b", "c"})
    ASSERT_TRUE(q.push(sample(name), 1));
  auto first = q.take(0ms);  // a and b: a full batch
  ASSERT_TRUE(first);
  EXPECT_EQ(first->samples, 2u);
  EXPECT_EQ(series_of(*first), (std::vector<std::string>{"a", "b"}));
  q.acknowledge();
  EXPECT_FALSE(q.take(0ms)) << "c waits for its batch or its snapshot's end";
  q.note_snapshot(1);
  auto second = q.take(0ms);
  ASSERT_TRUE(second);
  EXPECT_EQ(series_of(*second), std::vector<std::string>{"c"});
  testing::WriteRequest req;
  ASSERT_TRUE(testing::decode_write_request(second->body, req));
  EXPECT_EQ(testing::label_of(req.timeseries(0), "cluster"), "c1");  // external labels
  q.acknowledge();

  // A request holds one snapshot's samples (the lag is counted per snapshot).
  ASSERT_TRUE(q.push(sample("d"), 2));
  ASSERT_TRUE(q.push(sample("e"), 3));
  q.note_snapshot(3);
  auto third = q.take(0ms);
  ASSERT_TRUE(third);
  EXPECT_EQ(series_of(*third), std::vector<std::string>{"d"});
}

TEST(RemoteWriteShardQueue, BoundedInSamples) {
  ShardQueue q(3, 1 << 20, 2);
  EXPECT_TRUE(q.push(sample("a"), 1));
  EXPECT_TRUE(q.push(sample("b"), 1));
  EXPECT_TRUE(q.push(sample("c"), 1));
  EXPECT_FALSE(q.push(sample("d"), 1));
  const auto batch = q.take(0ms);
  ASSERT_TRUE(batch);
  EXPECT_EQ(series_of(*batch), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(q.push(sample("d"), 1));  // taken but not acknowledged still counts
  q.acknowledge();
  EXPECT_TRUE(q.push(sample("d"), 2));
  EXPECT_EQ(q.samples(), 2u);
}

// Bytes are the open request's protobuf and the compressed requests: a queue of 1,000 similar
// series holds far less than their text.
TEST(RemoteWriteShardQueue, BoundedInBytesOfTheEncodedRequests) {
  const auto series = [](int i) {
    return "infiniband_port_xmit_data_bytes_total{node_guid=\"0x0002c903000" +
           std::to_string(10000 + i) + "\",port=\"1\",node_description=\"node " +
           std::to_string(i) + " HCA-1\"}";
  };
  ShardQueue q(100'000, 1 << 20, 100);
  size_t text = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(q.push({series(i), 1.0 * i, 1'700'000'000'000}, 1));
    text += series(i).size();
  }
  q.note_snapshot(1);
  EXPECT_LT(q.bytes() * 3, text) << q.bytes() << " bytes for " << text << " bytes of series";

  ShardQueue small(100'000, 2000, 1000);  // the open request alone reaches the bound
  int pushed = 0;
  while (small.push({series(pushed), 1, 1}, 1))
    ++pushed;
  EXPECT_GT(pushed, 5);
  EXPECT_LE(small.bytes(), 2000u);
  EXPECT_EQ(small.samples(), static_cast<size_t>(pushed));
  small.note_snapshot(1);
  auto r = small.take(0ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(series_of(*r).size(), static_cast<size_t>(pushed)) << "the refused one is not sent";
}

TEST(RemoteWriteShardQueue, MalformedSeriesAreRefused) {
  ShardQueue q(100, 1 << 20);
  EXPECT_EQ(q.push("x{a=\"1\"", 1, 1, 1), ShardQueue::Push::kMalformed);
  EXPECT_EQ(q.samples(), 0u);
}

TEST(RemoteWriteShardQueue, LagOriginIsTheOldestUnacknowledgedSnapshot) {
  ShardQueue q(100, 1 << 20, 1000);
  EXPECT_EQ(q.lag_origin_ms(), 0);
  q.note_snapshot(1000);  // nothing for this shard: acknowledged at once
  EXPECT_EQ(q.lag_origin_ms(), 1000);
  q.push(sample("a"), 2000);
  EXPECT_EQ(q.lag_origin_ms(), 2000);  // still being written
  q.note_snapshot(2000);
  q.push(sample("b"), 3000);
  q.note_snapshot(3000);
  EXPECT_EQ(q.lag_origin_ms(), 2000);
  ASSERT_TRUE(q.take(0ms));
  EXPECT_EQ(q.lag_origin_ms(), 2000);  // in flight
  q.acknowledge();
  EXPECT_EQ(q.lag_origin_ms(), 3000);
  ASSERT_TRUE(q.take(0ms));
  q.acknowledge();
  EXPECT_EQ(q.lag_origin_ms(), 3000);
  q.note_snapshot(4000);
  EXPECT_EQ(q.lag_origin_ms(), 4000);
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write
