// The daemon's pipeline without the binary or a simulator: a Daemon on a fake fabric (the
// FakeMadEngine's model PMAs, on a virtual clock the poller's thread drives) discovers, reads,
// converts and serves: the counters the model holds come out exact in the snapshot and on
// /metrics, link health is judged, and stop() ends every thread with the pollers' result.
#include "ibpulse/daemon/daemon.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "ibpulse/collector/testing/fake_fabric.h"
#include "ibpulse/collector/testing/fake_mad_engine.h"
#include "ibpulse/collector/testing/virtual_clock.h"

namespace ibpulse::daemon {
namespace {

using namespace std::chrono_literals;
using collector::PortKey;

constexpr uint64_t kSwitch = 0x100;
constexpr PortKey kHca1{0x201, 1}, kHca2{0x202, 1};

// A plain GET of `path` on the loopback port; the whole response, head and body.
std::string http_get(uint16_t port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string raw;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[65536];
      for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        raw.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return raw;
}

// The fabric and the clock live on the poller's thread once the daemon runs.
struct FakeBackend {
  collector::testing::FakeFabric fabric;
  collector::testing::VirtualClock clock;

  FakeBackend() {
    fabric.add_switch(kSwitch, 1, 2);
    fabric.add_hca(kHca1.node_guid, 2);
    fabric.add_hca(kHca2.node_guid, 3);
    fabric.link(kHca1, PortKey{kSwitch, 1});
    fabric.link(kHca2, PortKey{kSwitch, 2});
    fabric.set(kHca1, schema::CounterId::kXmitData, 1000);
    fabric.set(kHca2, schema::CounterId::kSymbolError, 7);
  }

  collector::PollerBackend backend() {
    collector::PollerBackend b;
    b.open_engine = [this](const std::string&, int, const collector::MadEngineOptions& o) {
      return Result<std::unique_ptr<collector::MadEngine>>(
          std::make_unique<collector::testing::FakeMadEngine>(fabric, clock, o, 1));
    };
    b.discover = [this](const collector::DiscoveryOptions&) {
      return Result<collector::Topology>(fabric.topology());
    };
    b.now = [this] { return clock.now(); };
    // Virtual time passes at once; a little real time too, so the poller does not spin.
    b.sleep = [this](collector::PollerBackend::Clock::duration d) {
      clock.advance(d);
      std::this_thread::sleep_for(std::min<collector::PollerBackend::Clock::duration>(d, 2ms));
    };
    return b;
  }
};

DaemonOptions fake_options(FakeBackend& fake) {
  DaemonOptions o;
  o.backend = fake.backend();
  o.poller.intervals = collector::Intervals{1s, 10s, 60s, 0ms};
  o.convert.publish_interval = 10ms;
  o.convert.state_save_interval = 0ms;
  o.ring_size = 1024;
  o.web.listen_address = "127.0.0.1:0";
  o.snmp.agent.listen = "off";
  o.rules = exporters::alerts::default_rules();
  return o;
}

TEST(Daemon, OnAFakeFabricItReadsConvertsServesAndStops) {
  FakeBackend fake;
  auto started = Daemon::start(fake_options(fake));
  ASSERT_TRUE(started.ok()) << started.error();
  Daemon& d = **started;
  ASSERT_GT(d.web_port(), 0);
  EXPECT_EQ(d.snmp_port(), 0) << "snmp.listen off";
  // A snapshot after a few sweeps holds what the model's counters hold, exactly.
  std::shared_ptr<const converters::FabricSnapshot> snap;
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < until) {
    snap = d.snapshots().wait_for_newer(snap, 1s);
    if (snap && d.sweeps() >= 3 && snap->find(kHca1) &&
        snap->find(kHca1)->has(schema::CounterId::kXmitData))
      break;
  }
  ASSERT_GE(d.sweeps(), 3u);
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->find(kHca1)->total(schema::CounterId::kXmitData), 4000u) << "words x 4";
  EXPECT_EQ(snap->find(kHca2)->total(schema::CounterId::kSymbolError), 7u);
  EXPECT_EQ(snap->ports.size(), 4u) << "two HCA ports and the switch's two";
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_NE(metrics.find("infiniband_port_symbol_error_total{"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("node_guid=\"0x0000000000000202\",port=\"1\"} 7\n"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("ibpulse_sweeps_total "), std::string::npos);
  // The alert thread judged the links on the snapshots.
  const auto until_health = std::chrono::steady_clock::now() + 10s;
  while (!d.healths().load() && std::chrono::steady_clock::now() < until_health)
    std::this_thread::sleep_for(10ms);
  ASSERT_NE(d.healths().load(), nullptr);
  EXPECT_EQ(d.healths().load()->links.size(), 2u);
  EXPECT_TRUE(d.stop().ok());
  EXPECT_FALSE(d.poller_ended()) << "stopped, not ended by itself";
  EXPECT_EQ(d.poller_stats().mad.failed_total(), 0u);
  EXPECT_EQ(d.converter_stats().foreign_clears, 0u);
}

TEST(Daemon, AnAddressInUseIsAnErrorNamingTheSetting) {
  FakeBackend first_fake;
  FakeBackend second_fake;
  auto first = Daemon::start(fake_options(first_fake));
  ASSERT_TRUE(first.ok()) << first.error();
  DaemonOptions o = fake_options(second_fake);
  o.web.listen_address = "127.0.0.1:" + std::to_string((*first)->web_port());
  // A remote writer starts before the endpoints: the failure must stop it before the stores
  // it reads go (AddressSanitizer's run checks that).
  auto endpoint = exporters::remote_write::parse_endpoint(
      ConfigNode::scalar("http://127.0.0.1:9/api/v1/write", "test"));
  ASSERT_TRUE(endpoint.ok()) << endpoint.error();
  o.remote_write.endpoints.push_back(std::move(*endpoint));
  auto second = Daemon::start(std::move(o));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.error().starts_with("--web.listen-address: ")) << second.error();
}

TEST(Daemon, AFailedFirstDiscoveryEndsThePollersAndStopReturnsTheError) {
  FakeBackend fake;
  DaemonOptions o = fake_options(fake);
  o.backend.discover = [](const collector::DiscoveryOptions&) {
    return Result<collector::Topology>(Error{"no local port"});
  };
  auto started = Daemon::start(std::move(o));
  ASSERT_TRUE(started.ok()) << started.error();
  Daemon& d = **started;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (!d.poller_ended() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(d.poller_ended());
  const Status stopped = d.stop();
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.error().find("discovery"), std::string::npos) << stopped.error();
}

}  // namespace
}  // namespace ibpulse::daemon
