// SNMP notifications from the in-process agent to real snmptrapd receivers on loopback ports:
// the exact varbinds of every notification (v2c trap, SNMPv3 trap with the agent's engineID,
// SNMPv3 inform with authPriv), link traps and their switch, dead receivers that must delay
// neither the other sinks nor requests, informs retried until a receiver that starts late
// acknowledges them, queues that drop the oldest, and the IBPULSE-MIB counters read back.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "eventually.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/agent.h"
#include "snmp_client.h"
#include "snmptrapd.h"
#include "test_snapshot.h"

namespace ibpulse::exporters::snmp {
namespace {

using namespace std::chrono_literals;
using alerts::AlertEvent;
using alerts::EventKind;
using ibpulse::testing::Snmptrapd;
using ibpulse::testing::TrapdUser;
using ibpulse::testing::TrapNotification;

const std::string kRoot = "1.3.6.1.4.1.8072.9999.9999";
const std::string kObjects = kRoot + ".1.3.";
constexpr size_t kQueue = 20;

SnmpUser user(const std::string& name) {
  SnmpUser u;
  u.name = name;
  u.auth_protocol = "SHA";
  u.auth_password = name + "-auth-secret";
  u.priv_protocol = "AES";
  u.priv_password = name + "-priv-secret";
  return u;
}

TrapdUser trapd_user(const SnmpUser& u, const std::string& engine_id = "") {
  return {u.name, u.auth_protocol, u.auth_password, u.priv_protocol, u.priv_password, engine_id};
}

TrapSink sink(TrapSink::Kind kind, const std::string& address, const std::string& name = "",
              std::chrono::milliseconds timeout = 300ms, unsigned retries = 1) {
  TrapSink s;
  s.kind = kind;
  s.address = address;
  if (kind != TrapSink::Kind::kV2cTrap) s.user = user(name);
  s.timeout = timeout;
  s.retries = retries;
  return s;
}

// How long the dead sinks' engineID discovery stays unanswered before it fails: long next to
// anything the agent does meanwhile, so "served while a discovery was outstanding" is an order
// of events, not a measured time.
constexpr auto kDeadSinkTimeout = 4s;

AlertEvent raised() {
  AlertEvent e;
  e.kind = EventKind::kRaised;
  e.port = {0x0002c90300000abcull, 3};
  e.if_index = 7;
  e.node_name = std::string(70, 'n');  // DisplayString (SIZE (0..64)): cut to 64
  e.rule = "symbol-errors-burst";
  e.counter = "symbol_error";
  e.condition = alerts::Condition::kRatePerSecond;
  e.value = 12.5;
  e.threshold = 10;
  e.window_seconds = 60;
  e.severity = alerts::Severity::kMajor;
  return e;
}

AlertEvent link(EventKind kind, uint32_t if_index, uint8_t oper) {
  AlertEvent e;
  e.kind = kind;
  e.port = {0x0002c90300000abcull, 5};
  e.if_index = if_index;
  e.admin_status = 1;
  e.oper_status = oper;
  return e;
}

AlertEvent rate_limited(uint32_t suppressed) {
  AlertEvent e;
  e.kind = EventKind::kRateLimited;
  e.suppressed = suppressed;
  e.window_seconds = 10;
  return e;
}

// A map or a URL as a flag gives it (YAML flow text, JSON alike).
ConfigNode flow(const std::string& text) {
  auto node = parse_config_text(text, "test");
  IBPULSE_CHECK(node.ok(), "test text {} parses", text);
  return *node;
}

using Expected = std::vector<std::tuple<std::string, std::string, std::string>>;

// Every varbind but sysUpTime.0's value, in order.
void expect_varbinds(const TrapNotification& n, const std::string& trap_oid,
                     const Expected& objects) {
  ASSERT_EQ(n.varbinds.size(), objects.size() + 2) << n.security;
  EXPECT_EQ(n.varbinds[0].oid, "1.3.6.1.2.1.1.3.0");
  EXPECT_EQ(n.varbinds[0].type, "Timeticks");
  EXPECT_LT(std::stoull(n.varbinds[0].value), 60'000u);  // the agent started this minute
  EXPECT_EQ(n.varbinds[1].oid, "1.3.6.1.6.3.1.1.4.1.0");
  EXPECT_EQ(n.varbinds[1].type, "OID");
  EXPECT_EQ(n.trap_oid, trap_oid);
  for (size_t i = 0; i < objects.size(); ++i) {
    const auto& [oid, type, value] = objects[i];
    EXPECT_EQ(n.varbinds[i + 2].oid, oid) << i;
    EXPECT_EQ(n.varbinds[i + 2].type, type) << oid;
    EXPECT_EQ(n.varbinds[i + 2].value, value) << oid;
  }
}

Expected threshold_objects(const std::string& value, const std::string& threshold) {
  return {{"1.3.6.1.2.1.2.2.1.1.7", "INTEGER", "7"},
          {kObjects + "1.0", "STRING", "0x0002c90300000abc"},
          {kObjects + "2.0", "STRING", std::string(64, 'n')},
          {kObjects + "3.0", "Gauge32", "3"},
          {kObjects + "4.0", "STRING", "symbol-errors-burst"},
          {kObjects + "5.0", "STRING", "symbol_error"},
          {kObjects + "6.0", "INTEGER", "2"},
          {kObjects + "7.0", "Counter64", value},
          {kObjects + "8.0", "Counter64", threshold},
          {kObjects + "9.0", "Gauge32", "60"},
          {kObjects + "10.0", "INTEGER", "4"}};
}

std::string snmpget(uint16_t port, const std::string& oid) {
  return ibpulse::testing::snmp_tool(
             fmt::format("snmpget -v2c -c public -On -Oqv -t 5 -r 0 127.0.0.1:{} {}", port, oid))
      .out;
}

// Every test gets its own agent, sinks and receivers: nothing carries over from one to the
// next, whatever their order.
class SnmpTrapTest : public ::testing::Test {
 protected:
  enum Sink { kV2c, kInform, kV3Trap, kDeadPort, kSilent, kLate };

  void SetUp() override {
    std::filesystem::create_directories(state_dir());
    store_.publish(converters::testing::small_fabric_snapshot(converters::Clock::now() - 1h));
    silent_ = socket(AF_INET, SOCK_DGRAM, 0);  // bound, never read: a receiver that drops all
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    ASSERT_EQ(bind(silent_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    getsockname(silent_, reinterpret_cast<sockaddr*>(&a), &length);
    v2c_ = Snmptrapd::start();
    inform_ = Snmptrapd::start({trapd_user(user("informer"))});
    ASSERT_TRUE(v2c_ && inform_);
    v3_trap_port_ = Snmptrapd::free_port();
    late_port_ = Snmptrapd::free_port();
    AgentOptions options;
    options.listen = "127.0.0.1:0";
    options.communities = {"public"};
    options.state_dir = state_dir().string();
    options.system.name = "fabric-a";
    options.notification_queue = kQueue;
    options.trap_sinks = {
        sink(TrapSink::Kind::kV2cTrap, v2c_->address()),
        sink(TrapSink::Kind::kV3Inform, inform_->address(), "informer"),
        sink(TrapSink::Kind::kV3Trap, fmt::format("127.0.0.1:{}", v3_trap_port_), "trapper"),
        sink(TrapSink::Kind::kV3Inform, fmt::format("127.0.0.1:{}", Snmptrapd::free_port()),
             "informer", kDeadSinkTimeout, 0),
        sink(TrapSink::Kind::kV3Inform, fmt::format("127.0.0.1:{}", ntohs(a.sin_port)), "informer",
             kDeadSinkTimeout, 0),
        sink(TrapSink::Kind::kV3Inform, fmt::format("127.0.0.1:{}", late_port_), "informer"),
    };
    options.status = [] {
      CollectorStatus s;
      s.active_alerts = 3;
      s.notifications_suppressed = 42;
      return s;
    };
    auto started = SnmpAgent::start(options, &store_);
    ASSERT_TRUE(started.ok()) << started.error();
    agent_ = std::move(*started);
    // The v3 trap receiver knows the user by the agent's engineID, which it now has.
    v3_trap_ = Snmptrapd::start({trapd_user(user("trapper"), agent_->engine_id())}, v3_trap_port_);
    ASSERT_TRUE(v3_trap_);
    ASSERT_TRUE(ibpulse::testing::eventually(  // the agent's view of the snapshot
        [] {
          return snmpget(agent_->port(), "1.3.6.1.2.1.1.5.0").find("fabric-a") != std::string::npos;
        },
        20s));
  }
  void TearDown() override {
    agent_.reset();
    v2c_.reset();
    inform_.reset();
    v3_trap_.reset();
    close(silent_);
    silent_ = -1;
    std::filesystem::remove_all(state_dir());
  }
  static std::filesystem::path state_dir() {
    return std::filesystem::temp_directory_path() / fmt::format("ibpulse-trap-test-{}", getpid());
  }
  static SnmpAgent::NotificationStats stats(Sink s) {
    return agent_->notification_stats().at(static_cast<size_t>(s)).stats;
  }
  // The receivers' notifications from now on.
  struct Mark {
    size_t v2c = v2c_->notifications().size(), inform = inform_->notifications().size(),
           v3_trap = v3_trap_->notifications().size();
  };
  static TrapNotification next(Snmptrapd& d, size_t after) {
    std::vector<TrapNotification> got = d.wait_for(after + 1, 5s);
    if (got.size() <= after) {
      ADD_FAILURE() << "no notification on port " << d.port() << ":\n" << d.output();
      return {};
    }
    return got[after];
  }

  static inline converters::SnapshotStore store_;
  static inline std::unique_ptr<SnmpAgent> agent_;
  static inline std::unique_ptr<Snmptrapd> v2c_, inform_, v3_trap_;
  static inline uint16_t v3_trap_port_ = 0, late_port_ = 0;
  static inline int silent_ = -1;
};

// Two v3-inform sinks nobody answers (a closed port, a socket that never reads): their
// engineID discovery must not stall the agent thread, as net-snmp's own synchronous probe would
// (timeout x (retries + 1) per probe and sink). Traps to the other sinks and requests are all
// served while both discoveries are still outstanding, which they are until kDeadSinkTimeout;
// then they fail, and are counted.
TEST_F(SnmpTrapTest, DeadInformSinksDelayNeitherTrapsNorRequests) {
  ASSERT_TRUE(agent_);
  const Mark m;
  agent_->notify(rate_limited(1));  // the dead sinks start discovering
  next(*v2c_, m.v2c);
  for (int i = 0; i < 5; ++i) {
    agent_->notify(rate_limited(100 + static_cast<uint32_t>(i)));
    next(*v2c_, m.v2c + 1 + static_cast<size_t>(i));
    EXPECT_NE(snmpget(agent_->port(), "1.3.6.1.2.1.1.5.0").find("fabric-a"), std::string::npos);
  }
  EXPECT_EQ(stats(kDeadPort).failed, 0u) << "served only after a discovery had failed";
  EXPECT_EQ(stats(kSilent).failed, 0u) << "served only after a discovery had failed";
  EXPECT_TRUE(ibpulse::testing::eventually(
      [&] { return stats(kDeadPort).failed > 0 && stats(kSilent).failed > 0; }, 20s));
  EXPECT_EQ(stats(kDeadPort).sent, 0u);
  EXPECT_EQ(stats(kSilent).sent, 0u);
}

// The late sink's receiver starts only now: every inform sent to it so far went unanswered,
// its queue kept the newest kQueue, and those arrive, oldest first, once it listens.
TEST_F(SnmpTrapTest, InformsWaitForALateReceiverAndTheOldestAreDropped) {
  ASSERT_TRUE(agent_);
  const SnmpAgent::NotificationStats before = agent_->notification_totals();
  for (uint32_t i = 1; i <= 30; ++i)
    agent_->notify(rate_limited(1000 + i));
  // The late sink's discovery times out (and backs off) before its receiver starts.
  ASSERT_TRUE(ibpulse::testing::eventually([] { return stats(kLate).failed > 0; }, 20s));
  auto late = Snmptrapd::start({trapd_user(user("informer"))}, late_port_);
  ASSERT_TRUE(late);
  const std::vector<TrapNotification> got = late->wait_for(kQueue, 20s);
  ASSERT_EQ(got.size(), kQueue) << late->output();
  for (size_t i = 0; i < kQueue; ++i) {
    const testing::TrapVarBind* count = got[i].find(kObjects + "11.0");
    ASSERT_NE(count, nullptr);
    EXPECT_EQ(count->value, std::to_string(1011 + i));
  }
  // Each once: every one acknowledged, so none is still to be sent again.
  EXPECT_TRUE(
      ibpulse::testing::eventually([] { return stats(kLate).acknowledged >= kQueue; }, 20s));
  EXPECT_EQ(late->notifications().size(), kQueue);
  const SnmpAgent::NotificationStats s = stats(kLate);
  EXPECT_EQ(s.acknowledged, kQueue);
  EXPECT_EQ(s.sent, kQueue);
  EXPECT_GT(s.failed, 0u);
  // Every sink kept the newest kQueue of the events that reached it and dropped (and counted)
  // the others; events notify()'s own queue dropped never reached them. 30 events in all.
  uint64_t sinks_dropped = 0;
  for (const SnmpAgent::SinkStats& sink : agent_->notification_stats())
    sinks_dropped += sink.stats.dropped;
  const uint64_t queue_dropped = agent_->notification_totals().dropped - sinks_dropped;
  EXPECT_EQ(stats(kDeadPort).dropped + kQueue + queue_dropped, 30u);
  EXPECT_EQ(stats(kSilent).dropped + kQueue + queue_dropped, 30u);
  EXPECT_EQ(s.dropped + kQueue + queue_dropped, 30u);
  EXPECT_GT(agent_->notification_totals().dropped, before.dropped);
}

TEST_F(SnmpTrapTest, ThresholdCrossedReachesEverySinkWithItsVarbinds) {
  ASSERT_TRUE(agent_);
  const Mark m;
  agent_->notify(raised());
  const std::string crossed = kRoot + ".0.1";
  const TrapNotification v2c = next(*v2c_, m.v2c);
  EXPECT_EQ(v2c.security, "TRAP2, SNMP v2c, community public");
  expect_varbinds(v2c, crossed, threshold_objects("12500", "10000"));
  const TrapNotification inform = next(*inform_, m.inform);
  EXPECT_TRUE(inform.security.starts_with("INFORM, SNMP v3, user informer")) << inform.security;
  expect_varbinds(inform, crossed, threshold_objects("12500", "10000"));
  const TrapNotification v3 = next(*v3_trap_, m.v3_trap);
  EXPECT_TRUE(v3.security.starts_with("TRAP2, SNMP v3, user trapper")) << v3.security;
  expect_varbinds(v3, crossed, threshold_objects("12500", "10000"));
  EXPECT_TRUE(ibpulse::testing::eventually([] { return stats(kInform).acknowledged == 1; }, 20s));
  EXPECT_EQ(stats(kV2c).sent, 1u);
  EXPECT_EQ(stats(kInform).sent, 1u);
  EXPECT_EQ(stats(kDeadPort).sent, 0u);  // its engineID was never discovered
}

TEST_F(SnmpTrapTest, ThresholdClearedRoundsThousandthsAndNeverGoesNegative) {
  ASSERT_TRUE(agent_);
  const Mark m;
  AlertEvent e = raised();
  e.kind = EventKind::kCleared;
  e.value = -1;
  e.threshold = 0.0015;
  agent_->notify(e);
  const std::string cleared = kRoot + ".0.2";
  expect_varbinds(next(*v2c_, m.v2c), cleared, threshold_objects("0", "2"));
  expect_varbinds(next(*inform_, m.inform), cleared, threshold_objects("0", "2"));
}

TEST_F(SnmpTrapTest, LinkDownAndLinkUpCarryIfIndexAndStatuses) {
  ASSERT_TRUE(agent_);
  const Mark m;
  agent_->notify(link(EventKind::kLinkDown, 5, 2));
  agent_->notify(link(EventKind::kLinkUp, 5, 1));
  for (Snmptrapd* d : {v2c_.get(), inform_.get()}) {
    const size_t after = d == v2c_.get() ? m.v2c : m.inform;
    const std::vector<TrapNotification> got = d->wait_for(after + 2, 5s);
    ASSERT_EQ(got.size(), after + 2) << d->output();
    expect_varbinds(got[after], "1.3.6.1.6.3.1.1.5.3",
                    {{"1.3.6.1.2.1.2.2.1.1.5", "INTEGER", "5"},
                     {"1.3.6.1.2.1.2.2.1.7.5", "INTEGER", "1"},
                     {"1.3.6.1.2.1.2.2.1.8.5", "INTEGER", "2"}});
    expect_varbinds(got[after + 1], "1.3.6.1.6.3.1.1.5.4",
                    {{"1.3.6.1.2.1.2.2.1.1.5", "INTEGER", "5"},
                     {"1.3.6.1.2.1.2.2.1.7.5", "INTEGER", "1"},
                     {"1.3.6.1.2.1.2.2.1.8.5", "INTEGER", "1"}});
  }
  // ifLinkUpDownTrapEnable: enabled(1), the agent has sinks and link traps are on.
  EXPECT_EQ(snmpget(agent_->port(), "1.3.6.1.2.1.31.1.1.1.14.1"), "1\n");
}

TEST_F(SnmpTrapTest, RateLimited) {
  ASSERT_TRUE(agent_);
  const Mark m;
  agent_->notify(rate_limited(17));
  expect_varbinds(next(*v3_trap_, m.v3_trap), kRoot + ".0.3",
                  {{kObjects + "11.0", "Gauge32", "17"}, {kObjects + "9.0", "Gauge32", "10"}});
}

TEST_F(SnmpTrapTest, MibScalarsReadBackTheCounts) {
  ASSERT_TRUE(agent_);
  const Mark m;
  agent_->notify(rate_limited(3));
  next(*v2c_, m.v2c);
  next(*v3_trap_, m.v3_trap);
  const std::string alerts = kRoot + ".1.2.";
  // The agent takes the counts in on its next loop: traps to the v2c and v3 receivers, the
  // inform once it goes out.
  EXPECT_TRUE(ibpulse::testing::eventually(
      [&] {
        return stats(kInform).sent == 1 &&
               snmpget(agent_->port(), alerts + "2.0") ==
                   std::to_string(agent_->notification_totals().sent) + "\n";
      },
      20s));
  const SnmpAgent::NotificationStats t = agent_->notification_totals();
  EXPECT_EQ(t.sent, 3u);  // v2c trap, v3 trap, inform: the dead and late sinks never sent
  uint64_t sent = 0;
  for (const SnmpAgent::SinkStats& s : agent_->notification_stats())
    sent += s.stats.sent;
  EXPECT_EQ(t.sent, sent);
  EXPECT_EQ(snmpget(agent_->port(), alerts + "1.0"), "3\n");
  EXPECT_EQ(snmpget(agent_->port(), alerts + "2.0"), std::to_string(t.sent) + "\n");
  EXPECT_EQ(snmpget(agent_->port(), alerts + "3.0"), std::to_string(t.dropped) + "\n");
  EXPECT_EQ(snmpget(agent_->port(), alerts + "4.0"), "42\n");
  // A walk of ibpulseObjects gives both groups, the collector's then the alerts'.
  const std::string walk =
      ibpulse::testing::snmp_tool(
          fmt::format("snmpwalk -v2c -c public -On -Oq 127.0.0.1:{} {}.1", agent_->port(), kRoot))
          .out;
  EXPECT_NE(walk.find("." + kRoot + ".1.1.14.0 "), std::string::npos) << walk;
  EXPECT_NE(walk.find("." + kRoot + ".1.2.4.0 42"), std::string::npos) << walk;
}

// Link traps off: an agent of its own (one runs at a time in a process).
class LinkTrapsOffTest : public ::testing::Test {};

TEST_F(LinkTrapsOffTest, NoLinkTrapsAndIfLinkUpDownTrapEnableDisabled) {
  converters::SnapshotStore store;
  store.publish(converters::testing::small_fabric_snapshot(converters::Clock::now() - 1h));
  auto trapd = Snmptrapd::start();
  ASSERT_TRUE(trapd);
  AgentOptions options;
  options.listen = "127.0.0.1:0";
  options.communities = {"public"};
  options.link_up_down_traps = false;
  options.trap_sinks = {sink(TrapSink::Kind::kV2cTrap, trapd->address())};
  auto started = SnmpAgent::start(options, &store);
  ASSERT_TRUE(started.ok()) << started.error();
  std::unique_ptr<SnmpAgent> agent = std::move(*started);
  agent->notify(link(EventKind::kLinkDown, 5, 2));
  agent->notify(rate_limited(5));  // sent after the link trap would have been
  const std::vector<TrapNotification> got = trapd->wait_for(1, 5s);
  ASSERT_EQ(got.size(), 1u) << trapd->output();
  // The first to arrive is the one sent after it: the link trap was never sent.
  EXPECT_EQ(got[0].trap_oid, kRoot + ".0.3");
  std::string value;
  EXPECT_TRUE(ibpulse::testing::eventually(  // the agent's view of the snapshot
      [&] { return (value = snmpget(agent->port(), "1.3.6.1.2.1.31.1.1.1.14.1")) == "2\n"; }, 20s))
      << value;
}

// Informs in flight when the receiver went away time out together and are sent again in the
// order they were made, so a clear never overtakes its raise.
TEST_F(SnmpTrapTest, UnacknowledgedInformsAreSentAgainInTheirOrder) {
  ASSERT_TRUE(agent_);
  const Mark m;
  agent_->notify(rate_limited(2000));
  next(*inform_, m.inform);  // the receiver's engineID is known
  const uint16_t port = inform_->port();
  inform_.reset();
  const uint64_t failed = stats(kInform).failed;
  for (uint32_t i = 1; i <= 5; ++i)
    agent_->notify(rate_limited(2000 + i));  // in flight together, then timed out
  ASSERT_TRUE(ibpulse::testing::eventually([&] { return stats(kInform).failed > failed; }, 20s));
  inform_ = Snmptrapd::start({trapd_user(user("informer"))}, port);
  ASSERT_TRUE(inform_);
  const std::vector<TrapNotification> got = inform_->wait_for(5, 20s);
  const auto st = stats(kInform);
  ASSERT_EQ(got.size(), 5u) << inform_->output() << " sent " << st.sent << " acked "
                            << st.acknowledged << " retried " << st.retried << " failed "
                            << st.failed << " dropped " << st.dropped;
  for (size_t i = 0; i < got.size(); ++i) {
    const testing::TrapVarBind* count = got[i].find(kObjects + "11.0");
    ASSERT_NE(count, nullptr);
    EXPECT_EQ(count->value, std::to_string(2001 + i));
  }
}

TEST(TrapSinkConfig, ParsesEveryKeyAndSaysWhatToWrite) {
  auto s = parse_trap_sink(flow(
      R"({"address": "10.0.0.5:1162", "type": "v3-inform", "user": "nms",
          "auth-protocol": "SHA-256", "auth-password": "12345678", "priv-protocol": "AES",
          "priv-password": "abcdefgh", "timeout": "500ms", "retries": 5})"));
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->kind, TrapSink::Kind::kV3Inform);
  EXPECT_EQ(s->address, "10.0.0.5:1162");
  EXPECT_EQ(s->user.name, "nms");
  EXPECT_EQ(s->user.auth_protocol, "SHA-256");
  EXPECT_EQ(s->timeout, 500ms);
  EXPECT_EQ(s->retries, 5u);
  auto v2c = parse_trap_sink(flow(R"({"address": "nms.example.org", "community": "traps"})"));
  ASSERT_TRUE(v2c.ok()) << v2c.error();
  EXPECT_EQ(v2c->kind, TrapSink::Kind::kV2cTrap);
  EXPECT_EQ(v2c->community, "traps");
  EXPECT_EQ(v2c->timeout, 1s);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"address": "a:162", "comunity": "x"})", "unknown key 'comunity'"},
      {R"({"address": "a:162", "type": "v2-trap"})", "not v2c-trap, v3-trap or v3-inform"},
      {R"({"address": "a:162", "timeout": "1 h"})", "want a duration like 1s or 500ms"},
      {R"({"address": "a:99999"})",
       "port '99999' is not a number from 0 to 65535; write HOST[:PORT]"},
      {R"({"address": "::1"})", "an IPv6 address needs brackets"},
      {R"({"type": "v2c-trap"})", "'address' (host:port) is missing"},
      {R"({"address": "a", "type": "v3-trap"})", "need a 'user'"},
      {R"({"address": "a", "type": "v3-trap", "user": "u", "auth-password": "short"})",
       "8 or more characters"},
      {R"({"address": "a", "user": "u"})", "a v2c-trap takes a community"},
      {R"({"address": "a", "retries": -1})", "retries must be"},
      {R"(["a"])", "want a map"},
  };
  for (const auto& [json, message] : bad) {
    auto r = parse_trap_sink(flow(json));
    ASSERT_FALSE(r.ok()) << json;
    EXPECT_NE(r.error().find(message), std::string::npos) << json << ": " << r.error();
  }
}

}  // namespace
}  // namespace ibpulse::exporters::snmp
