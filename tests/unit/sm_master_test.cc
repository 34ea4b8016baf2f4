// The threshold engine's ibpulseSmMasterChanged (kSmMaster events) from the SMInfo rounds a
// snapshot carries: no event for the first master seen, one when another SM answers as master,
// one when none has for two rounds of its subnet (not one), each subnet judged by its own
// rounds, and through storm control.
#include <gtest/gtest.h>

#include <vector>

#include "alert_fabric.h"

namespace ibpulse::exporters::alerts {
namespace {

constexpr uint64_t kPrefix = 0xfe80000000000000, kOtherPrefix = 0xfe80000000000001;
constexpr uint64_t kSwitchSm = 0x0002c90300000001, kHcaSm = 0x0002c90300000011;

// The changes: not the first master seen (logged only).
std::vector<AlertEvent> events_of(const std::vector<Decision>& decisions) {
  std::vector<AlertEvent> out;
  for (const Decision& d : decisions)
    if (!d.event.first_sight) out.push_back(d.event);
  return out;
}

EngineOptions options(unsigned rate_limit = 1000) {
  EngineOptions o;
  o.rate_limit = rate_limit;
  o.rate_interval = 1h;
  return o;
}

collector::SubnetManagerInfo sm(uint64_t node, uint8_t port, uint16_t lid, uint64_t guid,
                                uint8_t state, uint8_t subnet = 0) {
  collector::SubnetManagerInfo s;
  s.node_guid = node;
  s.port = port;
  s.lid = lid;
  s.subnet_prefix = subnet == 0 ? kPrefix : kOtherPrefix;
  s.subnet = subnet;
  s.info.guid = guid;
  s.info.priority = static_cast<uint8_t>(port == 0 ? 1 : 7);
  s.info.state = state;
  s.info.act_count = 100;
  return s;
}

// The engine and the rounds it is shown, a snapshot a second.
struct Rounds {
  explicit Rounds(EngineOptions o = options()) : engine({}, o) {}
  FabricClock f;
  ThresholdEngine engine;
  std::vector<uint64_t> rounds = {0};
  std::vector<collector::SubnetManagerInfo> last;
  double second = 0;

  // One more round of `subnet`, which found `found` (the other subnets keep theirs): its
  // kSmMaster decisions.
  std::vector<Decision> decide(std::vector<collector::SubnetManagerInfo> found,
                               uint8_t subnet = 0) {
    if (rounds.size() <= subnet) rounds.resize(subnet + 1u);
    ++rounds[subnet];
    std::erase_if(last, [&](const auto& s) { return s.subnet == subnet; });
    last.insert(last.end(), found.begin(), found.end());
    return evaluate();
  }
  std::vector<AlertEvent> round(std::vector<collector::SubnetManagerInfo> found,
                                uint8_t subnet = 0) {
    return events_of(decide(std::move(found), subnet));
  }
  // A snapshot without a new round.
  std::vector<AlertEvent> snapshot() { return events_of(evaluate()); }

  std::vector<Decision> evaluate() {
    FabricSnapshot s = f.at(second++);
    auto sms = std::make_shared<collector::SubnetManagers>();
    sms->managers = last;
    sms->rounds = rounds;
    s.subnet_managers = std::move(sms);
    std::vector<Decision> out;
    for (Decision& d : engine.evaluate(s, kWall))
      if (d.event.kind == EventKind::kSmMaster) out.push_back(std::move(d));
    return out;
  }
};

TEST(SmMaster, TheFirstMasterSeenIsNoChange) {
  Rounds r;
  EXPECT_TRUE(r.snapshot().empty()) << "no round yet";
  const auto seen = r.decide({sm(kSwitch, 0, 1, kSwitchSm, 3), sm(kHca, 1, 2, kHcaSm, 2)});
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].event.first_sight) << "logged";
  EXPECT_FALSE(seen[0].notify) << "never sent";
  EXPECT_EQ(seen[0].event.sm_guid, kSwitchSm);
  EXPECT_EQ(seen[0].event.previous_sm_guid, 0u);
  EXPECT_TRUE(r.snapshot().empty()) << "the same round again";
  EXPECT_TRUE(r.round({sm(kSwitch, 0, 1, kSwitchSm, 3)}).empty()) << "the standby went away";
  EXPECT_EQ(r.engine.stats().sm_master_changes, 0u);
}

TEST(SmMaster, AnotherMasterIsAChangeAtOnce) {
  Rounds r;
  r.round({sm(kSwitch, 0, 1, kSwitchSm, 3), sm(kHca, 1, 2, kHcaSm, 2)});
  const auto e = r.round({sm(kSwitch, 0, 1, kSwitchSm, 2), sm(kHca, 1, 2, kHcaSm, 3)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].sm_guid, kHcaSm);
  EXPECT_EQ(e[0].previous_sm_guid, kSwitchSm);
  EXPECT_EQ(e[0].subnet_prefix, kPrefix);
  EXPECT_EQ(e[0].lid, 2);
  EXPECT_EQ(e[0].sm_priority, 7);
  EXPECT_EQ(e[0].sm_state, 3);
  EXPECT_EQ(e[0].port, (collector::PortKey{kHca, 1}));
  EXPECT_EQ(e[0].node_name, "node07");
  EXPECT_EQ(e[0].when, kWall);
  EXPECT_TRUE(r.round({sm(kHca, 1, 2, kHcaSm, 3)}).empty()) << "still the same master";
  EXPECT_EQ(r.engine.stats().sm_master_changes, 1u);
}

TEST(SmMaster, DuringAHandOverTheMasterToldStays) {
  Rounds r;
  r.round({sm(kHca, 1, 2, kHcaSm, 3)});
  // Both answer master for a moment: the one told before is still one of them.
  EXPECT_TRUE(r.round({sm(kSwitch, 0, 1, kSwitchSm, 3), sm(kHca, 1, 2, kHcaSm, 3)}).empty());
  const auto e = r.round({sm(kSwitch, 0, 1, kSwitchSm, 3), sm(kHca, 1, 2, kHcaSm, 2)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].sm_guid, kSwitchSm);
  EXPECT_EQ(e[0].port, (collector::PortKey{kSwitch, 0}));
  EXPECT_EQ(e[0].node_name, "leaf01");
}

TEST(SmMaster, NoMasterForTwoRoundsIsALostMaster) {
  Rounds r;
  r.round({sm(kSwitch, 0, 1, kSwitchSm, 3)});
  EXPECT_TRUE(r.round({}).empty()) << "one unanswered round is not a lost master";
  EXPECT_TRUE(r.round({sm(kSwitch, 0, 1, kSwitchSm, 3)}).empty()) << "it answers again";
  EXPECT_TRUE(r.round({sm(kHca, 1, 2, kHcaSm, 2)}).empty()) << "a standby, no master: 1";
  EXPECT_TRUE(r.snapshot().empty()) << "no new round: nothing judged";
  const auto lost = r.round({sm(kHca, 1, 2, kHcaSm, 2)});
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].sm_guid, 0u);
  EXPECT_EQ(lost[0].previous_sm_guid, kSwitchSm);
  EXPECT_EQ(lost[0].sm_state, 0);
  EXPECT_EQ(lost[0].sm_priority, 0);
  EXPECT_EQ(lost[0].lid, 1) << "the previous master's";
  EXPECT_EQ(lost[0].port, (collector::PortKey{kSwitch, 0}));
  EXPECT_EQ(lost[0].subnet_prefix, kPrefix);
  EXPECT_TRUE(r.round({}).empty()) << "told once";
  const auto back = r.round({sm(kHca, 1, 2, kHcaSm, 3)});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].sm_guid, kHcaSm);
  EXPECT_EQ(back[0].previous_sm_guid, 0u) << "none was told last";
  EXPECT_EQ(r.engine.stats().sm_master_changes, 2u);
}

TEST(SmMaster, EachSubnetIsJudgedByItsOwnRounds) {
  Rounds r;
  r.round({sm(kSwitch, 0, 1, kSwitchSm, 3)}, 0);
  r.round({sm(kHca, 1, 2, kHcaSm, 3, 1)}, 1);
  // Subnet 1's master is gone for one of its rounds; subnet 0 is read three times meanwhile.
  EXPECT_TRUE(r.round({}, 1).empty());
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(r.round({sm(kSwitch, 0, 1, kSwitchSm, 3)}, 0).empty()) << i;
  const auto lost = r.round({}, 1);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].previous_sm_guid, kHcaSm);
  EXPECT_EQ(lost[0].subnet_prefix, kOtherPrefix);
}

TEST(SmMaster, NoMasterEverSeenIsNoChange) {
  Rounds r;
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(r.round({sm(kHca, 1, 2, kHcaSm, 2)}).empty()) << i;
  EXPECT_TRUE(r.round({sm(kHca, 1, 2, kHcaSm, 3)}).empty()) << "the first master seen";
}

TEST(SmMaster, StormControlWithholdsPastTheRateLimit) {
  Rounds r(options(1));
  ASSERT_EQ(r.decide({sm(kSwitch, 0, 1, kSwitchSm, 3)}).size(), 1u) << "first sight: no budget";
  const auto first = r.decide({sm(kHca, 1, 2, kHcaSm, 3)});
  const auto second = r.decide({sm(kSwitch, 0, 1, kSwitchSm, 3)});
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE(first[0].notify);
  EXPECT_FALSE(second[0].notify) << "past alerts.rate-limit";
  EXPECT_EQ(second[0].event.sm_guid, kSwitchSm);
  EXPECT_EQ(r.engine.stats().sm_master_changes, 2u);
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
