// Alerts on links and switches, from the health pass into the threshold engine's default rules:
// a bad cable raises one alert, named by its lower end with the other end beside it; a switch
// that loses power or reboots raises one switch_down and none of the port, counter or health
// alerts its ports and their peers would each raise; health.maintenance withholds a link's
// alerts until its end time.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/health.h"

namespace ibpulse::exporters::alerts {
namespace {

using namespace std::chrono_literals;
using converters::Clock;
using converters::OperStatus;
using schema::CounterId;

// HCAs H1-H3 (GUIDs below the switch's) on switch ports 1-3; switch port 4 unlinked.
constexpr uint64_t kH1 = 0x11, kH2 = 0x12, kH3 = 0x13, kSw = 0x50;
const Clock::time_point t0 = Clock::time_point{} + 1h;
const auto kWall = std::chrono::system_clock::time_point{} + 1000h;

struct PortLoad {
  bool up = true;
  uint64_t link_downed = 0;
  uint64_t foreign_clears = 0;
};

class Fabric {
 public:
  Fabric() {
    topology_ = std::make_shared<collector::Topology>();
    topology_->nodes = {
        {kH1, collector::NodeKind::kCa, "h1", "h1", 1, 0, 1, {}, {}, {}},
        {kH2, collector::NodeKind::kCa, "h2", "h2", 1, 0, 2, {}, {}, {}},
        {kH3, collector::NodeKind::kCa, "h3", "h3", 1, 0, 3, {}, {}, {}},
        {kSw, collector::NodeKind::kSwitch, "leaf07", "leaf07", 4, 0, 4, {}, {}, {}}};
    for (const uint64_t h : {kH1, kH2, kH3})
      add({h, 1}, collector::PortKey{kSw, static_cast<uint8_t>(h - kH1 + 1)});
    add({kSw, 0}, std::nullopt);
    for (uint8_t p = 1; p <= 3; ++p)
      add({kSw, p}, collector::PortKey{kH1 + p - 1, 1});
    add({kSw, 4}, std::nullopt);
  }

  PortLoad& port(uint64_t guid, uint8_t p) { return load_[{guid, p}]; }

  // Every port of the switch (and its peers) down, or all up.
  void power(bool on) {
    for (auto& [key, load] : load_) {
      if (key.port != 0 && !(key.node_guid == kSw && key.port == 4)) load.up = on;
    }
  }

  converters::FabricSnapshot at(Clock::time_point t) {
    auto topology = std::make_shared<collector::Topology>(*topology_);
    converters::FabricSnapshot s;
    s.published = t;
    s.sequence = ++sequence_;
    for (collector::Port& p : topology->ports) {
      const PortLoad& l = load_[p.key];
      const bool up = p.key.port == 0 || (p.remote && l.up);
      p.link.state = up ? 4 : 1;
      p.link.phys_state = up ? 5 : 2;
      converters::PortSnapshot& out = s.ports.emplace_back();
      out.key = p.key;
      out.if_index = static_cast<uint32_t>(s.ports.size());
      out.oper_status = up ? OperStatus::kUp : OperStatus::kDown;
      out.foreign_clears = l.foreign_clears;
      for (const CounterId c :
           {CounterId::kLinkDowned, CounterId::kLinkErrorRecovery, CounterId::kSymbolError}) {
        out.present |= uint64_t{1} << schema::index_of(c);
      }
      out.totals.set(schema::index_of(CounterId::kLinkDowned), l.link_downed);
    }
    s.topology = topology;
    return s;
  }

 private:
  void add(collector::PortKey key, std::optional<collector::PortKey> remote) {
    collector::Port p;
    p.key = key;
    p.remote = remote;
    p.link.width_active = 2;
    p.link.speed_active = 1;
    topology_->ports.push_back(p);
    load_[key];
  }
  std::shared_ptr<collector::Topology> topology_;
  std::map<collector::PortKey, PortLoad> load_;
  uint64_t sequence_ = 0;
};

struct Scenario {
  explicit Scenario(HealthOptions options = {})
      : health(std::move(options)), engine(default_rules(), {}) {}

  // Evaluates one snapshot; the raises are collected as "rule node/port[->node/port]".
  void step(Fabric& f, Clock::time_point t, std::chrono::system_clock::time_point wall = kWall) {
    const auto s = f.at(t);
    const auto h = health.evaluate(s, wall);
    for (const Decision& d : engine.evaluate(s, wall, h.get())) {
      if (d.event.kind != EventKind::kRaised) continue;
      std::string what = d.event.rule + " " + std::to_string(d.event.port.node_guid) + "/" +
                         std::to_string(d.event.port.port);
      if (d.event.remote) {
        what += "->" + std::to_string(d.event.remote->node_guid) + "/" +
                std::to_string(d.event.remote->port);
      }
      raised.push_back(what);
    }
  }

  HealthEngine health;
  ThresholdEngine engine;
  std::vector<std::string> raised;
};

using Names = std::vector<std::string>;

TEST(LinkAlerts, AFlappingCableIsOneAlertNamedByItsLowerEnd) {
  Fabric f;
  Scenario run;
  run.step(f, t0);
  run.step(f, t0 + 1s);
  // The cable between H2 and switch port 2 flaps: both ends count the link going down.
  f.port(kH2, 1).link_downed = 6;
  f.port(kSw, 2).link_downed = 6;
  run.step(f, t0 + 2s);
  std::vector<std::string> flapping;
  for (const auto& r : run.raised) {
    if (r.starts_with("link_flapping") || r.starts_with("health_failing")) flapping.push_back(r);
  }
  EXPECT_EQ(flapping, (Names{"link_flapping 18/1->80/2", "health_failing 18/1->80/2"}))
      << "18 = H2 (0x12), 80 = the switch (0x50)";
}

TEST(LinkAlerts, ASwitchThatLosesPowerRaisesOneAlert) {
  Fabric f;
  Scenario run;
  for (int s = 0; s < 3; ++s)
    run.step(f, t0 + std::chrono::seconds(s));
  f.power(false);
  for (int s = 3; s < 120; ++s)
    run.step(f, t0 + std::chrono::seconds(s));
  // Back on: every link counted going down at both ends.
  f.power(true);
  for (const uint64_t h : {kH1, kH2, kH3})
    f.port(h, 1).link_downed = 1;
  for (uint8_t p = 1; p <= 3; ++p)
    f.port(kSw, p).link_downed = 1;
  for (int s = 120; s < 600; s += 5)
    run.step(f, t0 + std::chrono::seconds(s));
  EXPECT_EQ(run.raised, Names{"switch_down 80/0"});
}

TEST(LinkAlerts, ARebootSeenOnlyInClearedCountersRaisesOneAlert) {
  Fabric f;
  Scenario run;
  run.step(f, t0);
  run.step(f, t0 + 1s);
  for (uint8_t p = 1; p <= 4; ++p)
    f.port(kSw, p).foreign_clears = 1;
  run.step(f, t0 + 2s);
  EXPECT_EQ(run.raised, Names{"switch_down 80/0"});
}

// The sweep that reads the cleared counters may be published in two snapshots.
TEST(LinkAlerts, ARebootsClearsSplitOverTwoSnapshotsRaiseOneAlert) {
  Fabric f;
  Scenario run;
  run.step(f, t0);
  run.step(f, t0 + 1s);
  for (uint8_t p = 1; p <= 2; ++p)
    f.port(kSw, p).foreign_clears = 1;
  run.step(f, t0 + 2s);
  EXPECT_EQ(run.raised, Names{}) << "half the ports: not yet a reboot";
  for (uint8_t p = 3; p <= 4; ++p)
    f.port(kSw, p).foreign_clears = 1;
  run.step(f, t0 + 3s);
  EXPECT_EQ(run.raised, Names{"switch_down 80/0"});
}

TEST(LinkAlerts, OneLinkDownIsNoSwitchDown) {
  Fabric f;
  Scenario run;
  run.step(f, t0);
  run.step(f, t0 + 1s);
  f.port(kH3, 1).up = false;
  f.port(kSw, 3).up = false;
  run.step(f, t0 + 2s);
  run.step(f, t0 + 70s);
  EXPECT_EQ(run.raised, (Names{"port_down 19/1", "port_down 80/3"}));
}

TEST(LinkAlerts, MaintenanceWithholdsALinksAlertsUntilItsEnd) {
  HealthOptions options;
  options.maintenance = {{"^leaf0[0-9]$", kWall + 1h}};
  Fabric f;
  Scenario run(options);
  run.step(f, t0);
  run.step(f, t0 + 1s);
  f.port(kH1, 1).link_downed = 9;
  run.step(f, t0 + 2s);
  EXPECT_EQ(run.raised, Names{}) << "leaf07 is being worked on: its links too";
  run.step(f, t0 + 3s, kWall + 1h);  // the window has ended
  ASSERT_FALSE(run.raised.empty());
  EXPECT_EQ(run.raised.front(), "link_downed 17/1");
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
