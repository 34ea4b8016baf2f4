// Remote write against a tiny local receiver: the retry policy (5xx and network errors retried
// with backoff, 4xx not), a receiver map's headers and credentials on the wire, sharding,
// timestamps from the readings and stale markers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "http_receiver.h"
#include "ibpulse/exporters/remote_write/http_client.h"
#include "ibpulse/exporters/remote_write/shard_sender.h"
#include "ibpulse/exporters/remote_write/writer.h"
#include "remote_write_decode.h"
#include "test_snapshot.h"

namespace ibpulse::exporters::remote_write {
namespace {

using namespace std::chrono_literals;
using testing::HttpReceiver;

Endpoint fast_endpoint(const std::string& url) {
  Endpoint e;
  e.url = url;
  e.min_backoff = 1ms;
  e.max_backoff = 4ms;
  e.timeout = 5000ms;
  return e;
}

// Waits (generously) until `done` holds.
template <typename Done>
bool eventually(Done done) {
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

TEST(RemoteWriteSender, RetriesServerErrorsUntilAccepted) {
  HttpReceiver receiver([](size_t n) { return n < 2 ? 503 : 204; });
  const Endpoint e = fast_endpoint(receiver.url());
  ShardQueue queue(100, 1 << 20);
  SampleCounters counters;
  ShardSender sender(e, 0, queue, counters);
  ASSERT_TRUE(queue.push({"a{x=\"1\"}", 5, 1000}, 1000));
  queue.note_snapshot(1000);
  ASSERT_TRUE(eventually([&] { return counters.sent.load() == 1; }));
  const auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 3u);                 // two 503s, then accepted
  EXPECT_EQ(requests[0].body, requests[2].body);  // the same batch again
  EXPECT_NE(requests[0].head.find("Content-Encoding: snappy"), std::string::npos);
  EXPECT_NE(requests[0].head.find("X-Prometheus-Remote-Write-Version: 0.1.0"), std::string::npos);
  EXPECT_NE(requests[0].head.find("Content-Type: application/x-protobuf"), std::string::npos);
  EXPECT_EQ(counters.retries.load(), 2u);
  EXPECT_EQ(counters.failed.load(), 0u);
  EXPECT_EQ(counters.sent_bytes.load(), requests[2].body.size()) << "the accepted body, once";
}

TEST(RemoteWriteSender, ClientErrorsAreNotRetried) {
  HttpReceiver receiver([](size_t) { return 400; });
  const Endpoint e = fast_endpoint(receiver.url());
  ShardQueue queue(100, 1 << 20);
  SampleCounters counters;
  ASSERT_TRUE(queue.push({"a", 1, 1}, 1));
  ASSERT_TRUE(queue.push({"b", 2, 1}, 1));
  queue.note_snapshot(1);
  ShardSender sender(e, 0, queue, counters);  // one batch of both
  ASSERT_TRUE(eventually([&] { return counters.failed.load() == 2; }));
  ASSERT_TRUE(eventually([&] { return queue.samples() == 0; }));
  EXPECT_EQ(receiver.requests().size(), 1u);
  EXPECT_EQ(counters.retries.load(), 0u);
  EXPECT_EQ(counters.sent.load(), 0u);
  EXPECT_EQ(counters.sent_bytes.load(), 0u);
}

TEST(RemoteWriteSender, NetworkErrorsAreRetried) {
  uint16_t port = 0;
  {
    HttpReceiver gone([](size_t) { return 204; });
    port = gone.port();
  }  // closed: connections are refused
  const Endpoint e = fast_endpoint("http://127.0.0.1:" + std::to_string(port) + "/api/v1/write");
  ShardQueue queue(100, 1 << 20);
  SampleCounters counters;
  ShardSender sender(e, 0, queue, counters);
  ASSERT_TRUE(queue.push({"a", 1, 1}, 1));
  queue.note_snapshot(1);
  ASSERT_TRUE(eventually([&] { return counters.retries.load() >= 3; }));
  EXPECT_EQ(queue.samples(), 1u);  // still held for the next attempt
  EXPECT_EQ(counters.failed.load(), 0u);
}

// A receiver map's headers and credentials as they reach the receiver: parse_endpoint reads
// the secret files as the daemon's configuration does, one HttpClient POST goes out, and the
// receiver keeps the request's head.
class RemoteWriteAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> runs{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("ibpulse-rw-auth-" + std::to_string(::getpid()) + "-" + std::to_string(runs++));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A file of this test's directory holding `text`: its path.
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  // One POST through the receiver map `fields` (JSON members besides the url) configure: the
  // request as the receiver got it.
  HttpReceiver::Request post_once(const std::string& fields) {
    auto node = parse_config_text(R"({"url": ")" + receiver_.url() + "\", " + fields + "}", "test");
    if (!node) ADD_FAILURE() << node.error();
    auto e = parse_endpoint(*node);
    if (!e) {
      ADD_FAILURE() << e.error();
      return {};
    }
    HttpClient client(*e);
    const HttpResult r = client.post("body");
    EXPECT_EQ(r.status, 204) << r.error;
    const auto got = receiver_.requests();  // kept before the answer went out
    EXPECT_EQ(got.size(), 1u);
    return got.empty() ? HttpReceiver::Request{} : got.back();
  }

  using Values = std::vector<std::string>;
  HttpReceiver receiver_{[](size_t) { return 204; }};
  std::filesystem::path dir_;
};

TEST_F(RemoteWriteAuth, ConfiguredHeadersAndTheBearerTokenFromItsFileAreSent) {
  const std::string token = file("token", "tok-9f8e7d\n");
  const auto r = post_once(R"("headers": {"X-Scope-OrgID": "tenant-a", "X-Fabric": "rail 2"},
      "bearer-token-file": ")" +
                           token + "\"");
  EXPECT_EQ(r.header("X-Scope-OrgID"), Values{"tenant-a"}) << r.head;
  EXPECT_EQ(r.header("X-Fabric"), Values{"rail 2"}) << r.head;
  EXPECT_EQ(r.header("Authorization"), Values{"Bearer tok-9f8e7d"}) << r.head;  // no newline
  // The protocol's own headers stay beside them.
  EXPECT_EQ(r.header("Content-Encoding"), Values{"snappy"}) << r.head;
  EXPECT_EQ(r.header("X-Prometheus-Remote-Write-Version"), Values{"0.1.0"}) << r.head;
}

TEST_F(RemoteWriteAuth, BasicAuthWithAPasswordFileIsSent) {
  const std::string password = file("password", "hunter2\n");
  const auto r = post_once(R"("username": "ibpulse", "password-file": ")" + password + "\"");
  // base64("ibpulse:hunter2"): the file's trailing newline is not part of the password.
  EXPECT_EQ(r.header("Authorization"), Values{"Basic aWJwdWxzZTpodW50ZXIy"}) << r.head;
}

TEST_F(RemoteWriteAuth, BasicAuthWithAPasswordInTheMapIsSent) {
  const auto r = post_once(R"("username": "mimir-writer", "password": "p@ss:w0rd",
      "headers": {"X-Scope-OrgID": "tenant-a"})");
  // base64("mimir-writer:p@ss:w0rd")
  EXPECT_EQ(r.header("Authorization"), Values{"Basic bWltaXItd3JpdGVyOnBAc3M6dzByZA=="}) << r.head;
  EXPECT_EQ(r.header("X-Scope-OrgID"), Values{"tenant-a"}) << r.head;
}

TEST_F(RemoteWriteAuth, WithoutCredentialsNoAuthorizationIsSent) {
  const auto r = post_once(R"("headers": {"X-Scope-OrgID": "tenant-b"})");
  EXPECT_EQ(r.header("Authorization"), Values{}) << r.head;
  EXPECT_EQ(r.header("X-Scope-OrgID"), Values{"tenant-b"}) << r.head;
}

TEST(RemoteWriteBackoff, DoublesUpToTheMaximum) {
  Backoff b(30ms, 100ms);
  EXPECT_EQ(b.next(), 30ms);
  EXPECT_EQ(b.next(), 60ms);
  EXPECT_EQ(b.next(), 100ms);
  EXPECT_EQ(b.next(), 100ms);
  b.reset();
  EXPECT_EQ(b.next(), 30ms);
  EXPECT_EQ(classify({429, "", ""}), Outcome::kRetry);
  EXPECT_EQ(classify({404, "", ""}), Outcome::kReject);
  EXPECT_EQ(classify({200, "", ""}), Outcome::kSent);
}

// Every series of every request, by its labels: its samples (value, timestamp) and the
// connections they came on.
struct Series {
  std::vector<std::pair<double, int64_t>> samples;
  std::set<size_t> connections;
};
std::map<std::string, Series> received(const HttpReceiver& r) {
  std::map<std::string, Series> out;
  for (const auto& req : r.requests()) {
    testing::WriteRequest w;
    EXPECT_TRUE(testing::decode_write_request(req.body, w));
    for (const auto& ts : w.timeseries()) {
      std::string key;
      for (const auto& l : ts.labels())
        key += l.name() + "=" + l.value() + ";";
      for (const auto& s : ts.samples())
        out[key].samples.emplace_back(s.value(), s.timestamp());
      out[key].connections.insert(req.connection);
    }
  }
  return out;
}

size_t sample_count(const std::map<std::string, Series>& all) {
  size_t n = 0;
  for (const auto& [key, s] : all)
    n += s.samples.size();
  return n;
}

using converters::Clock;
using converters::FabricSnapshot;

// A copy of `s` published `seconds` later.
std::shared_ptr<const FabricSnapshot> later(const FabricSnapshot& s, int seconds) {
  auto copy = std::make_shared<FabricSnapshot>(s);
  copy->published += std::chrono::seconds(seconds);
  return copy;
}

constexpr int64_t kT0Unix = 1'700'000'000'000;

struct WriterFixture {
  Clock::time_point t0 = Clock::now();
  std::chrono::milliseconds offset =
      std::chrono::milliseconds(kT0Unix) -
      std::chrono::duration_cast<std::chrono::milliseconds>(t0.time_since_epoch());
  std::shared_ptr<const FabricSnapshot> first = converters::testing::small_fabric_snapshot(t0);
  HttpReceiver receiver{[](size_t) { return 204; }};

  WriterOptions options(bool changed_only, unsigned concurrency = 1) const {
    WriterOptions o;
    Endpoint e = fast_endpoint(receiver.url());
    e.concurrency = concurrency;
    e.batch_size = 7;
    o.endpoints.push_back(e);
    o.changed_only = changed_only;
    return o;
  }
  // Waits until the writer's receiver acknowledged `n` samples in all.
  static bool all_sent(const RemoteWriter& w, uint64_t n) {
    return eventually([&] { return w.status()[0].sent == n && w.status()[0].queue_samples == 0; });
  }
};

const std::string kHcaXmit =
    "__name__=infiniband_port_xmit_data_bytes_total;node_guid=0x0002c90300000001;port=1;";

// The daemon numbers its snapshots: the writer counts those published while it was busy with
// an earlier one (it only ever takes the latest), so a coarser resolution in the TSDB shows.
TEST(RemoteWriter, CountsTheSnapshotsItPassedOver) {
  WriterFixture f;
  RemoteWriter w(f.options(true), {});
  const auto numbered = [&](int seconds, uint64_t sequence) {
    auto copy = std::make_shared<FabricSnapshot>(*f.first);
    copy->published += std::chrono::seconds(seconds);
    copy->sequence = sequence;
    return std::shared_ptr<const FabricSnapshot>(copy);
  };
  w.write(numbered(0, 1), f.offset);
  w.write(numbered(1, 2), f.offset);
  EXPECT_EQ(w.status()[0].snapshots_skipped, 0u);
  w.write(numbered(4, 5), f.offset);  // 3 and 4 came and went meanwhile
  EXPECT_EQ(w.status()[0].snapshots_written, 3u);
  EXPECT_EQ(w.status()[0].snapshots_skipped, 2u);
  w.write(later(*f.first, 5), f.offset);  // not numbered (a test's or a tool's): no gap known
  EXPECT_EQ(w.status()[0].snapshots_written, 4u);
  EXPECT_EQ(w.status()[0].snapshots_skipped, 2u);
}

TEST(RemoteWriter, SendsTheSeriesOfMetricsWithTheirReadingTimes) {
  WriterFixture f;
  RemoteWriter w(f.options(true), {});
  w.write(f.first, f.offset);
  const uint64_t n = w.status()[0].sent + w.status()[0].queue_samples;
  ASSERT_GT(n, 20u);
  ASSERT_TRUE(WriterFixture::all_sent(w, n));
  const auto got = received(f.receiver);
  ASSERT_EQ(sample_count(got), n);
  ASSERT_EQ(got.count(kHcaXmit), 1u);
  // A counter: its value exact (PortXmitData x 4, below 2^53) at the time the port was read.
  EXPECT_EQ(got.at(kHcaXmit).samples.at(0), (std::pair<double, int64_t>(2e13, kT0Unix)));
  // A gauge: the snapshot's publish time (2 s after the reading).
  const auto state = got.at("__name__=infiniband_port_state;node_guid=0x0002c90300000001;port=1;");
  EXPECT_EQ(state.samples.at(0).second, kT0Unix + 2000);
}

TEST(RemoteWriter, ChangedOnlySendsUnchangedSeriesAgainOnlyAfterResend) {
  WriterFixture f;
  RemoteWriter w(f.options(true), {});
  w.write(f.first, f.offset);
  const uint64_t n1 = w.status()[0].sent + w.status()[0].queue_samples;
  w.write(later(*f.first, 1), f.offset);  // the same values: only time-based gauges change
  const uint64_t n2 = w.status()[0].sent + w.status()[0].queue_samples;
  ASSERT_TRUE(WriterFixture::all_sent(w, n2));
  EXPECT_LT(n2 - n1, n1 / 4);
  EXPECT_EQ(received(f.receiver).at(kHcaXmit).samples.size(), 1u);
  w.write(later(*f.first, 61), f.offset);  // resend (60 s) is due
  const uint64_t n3 = w.status()[0].sent + w.status()[0].queue_samples;
  EXPECT_EQ(n3 - n2, n1);
  ASSERT_TRUE(WriterFixture::all_sent(w, n3));
  EXPECT_EQ(received(f.receiver).at(kHcaXmit).samples.size(), 2u);
}

TEST(RemoteWriter, WithoutChangedOnlyEverySnapshotIsSentWhole) {
  WriterFixture f;
  RemoteWriter w(f.options(false), {});
  w.write(f.first, f.offset);
  const uint64_t n1 = w.status()[0].sent + w.status()[0].queue_samples;
  w.write(later(*f.first, 1), f.offset);
  ASSERT_TRUE(WriterFixture::all_sent(w, 2 * n1));
}

TEST(RemoteWriter, ASeriesThatLeavesIsSentOnceAsAStaleMarker) {
  WriterFixture f;
  RemoteWriter w(f.options(true), {});
  w.write(f.first, f.offset);
  auto without = std::make_shared<FabricSnapshot>(*f.first);
  std::erase_if(without->ports, [](const auto& p) { return p.key == converters::testing::kHca; });
  without->published += std::chrono::seconds(1);
  w.write(without, f.offset);
  w.write(later(*without, 1), f.offset);
  const uint64_t n = w.status()[0].sent + w.status()[0].queue_samples;
  ASSERT_TRUE(WriterFixture::all_sent(w, n));
  const auto series = received(f.receiver);  // kept: `xmit` refers into it
  const auto& xmit = series.at(kHcaXmit).samples;
  ASSERT_EQ(xmit.size(), 2u);
  EXPECT_EQ(std::bit_cast<uint64_t>(xmit[1].first), 0x7ff0000000000002ULL);
  EXPECT_EQ(xmit[1].second, kT0Unix + 3000);  // the publish time of the snapshot it left
}

TEST(RemoteWriter, EachSeriesStaysOnOneShard) {
  WriterFixture f;
  RemoteWriter w(f.options(false, 4), {});
  for (int i = 0; i < 5; ++i)
    w.write(later(*f.first, i), f.offset);
  const uint64_t n = w.status()[0].sent + w.status()[0].queue_samples;
  ASSERT_TRUE(WriterFixture::all_sent(w, n));
  std::set<size_t> used;
  for (const auto& [key, s] : received(f.receiver)) {
    EXPECT_EQ(s.connections.size(), 1u) << key;
    EXPECT_EQ(s.samples.size(), 5u) << key;
    used.insert(s.connections.begin(), s.connections.end());
  }
  EXPECT_GT(used.size(), 1u);  // the series are spread over the shards
}

TEST(RemoteWriter, AFullQueueDropsAndCountsAndTheSeriesIsSentLater) {
  WriterFixture f;
  std::atomic<bool> healthy{false};
  HttpReceiver flaky([&healthy](size_t) { return healthy.load() ? 204 : 503; });
  WriterOptions o = f.options(true);
  o.endpoints[0].url = flaky.url();
  o.endpoints[0].queue_samples = 10;
  RemoteWriter w(o, {});
  w.write(f.first, f.offset);
  const auto st = w.status()[0];
  EXPECT_EQ(st.queue_samples, 10u);
  EXPECT_EQ(st.sent, 0u);
  ASSERT_GT(st.dropped, 0u);
  const size_t series = 10 + st.dropped;
  healthy.store(true);
  // Each snapshot queues what fits: the series dropped before are offered again until every
  // one of them went out (unchanged values included).
  for (int i = 1; i <= 40 && received(flaky).size() < series; ++i) {
    ASSERT_TRUE(eventually([&] { return w.status()[0].queue_samples == 0; }));
    w.write(later(*f.first, i), f.offset);
  }
  ASSERT_TRUE(eventually([&] { return w.status()[0].queue_samples == 0; }));
  EXPECT_EQ(received(flaky).size(), series);
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write
