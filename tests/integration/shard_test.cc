// Shards on one simulated fabric: three `ibpulse run` daemons with shard.count 3 split the
// ports between them by rendezvous hashing (each port on exactly one shard, or on exactly
// `replicas` shards), each serves exact counters for its own ports, and with replicas 2 a
// killed shard leaves no port unserved.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "snmp_client.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;
using PortId = std::pair<std::string, unsigned>;  // node GUID text, port

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// The value of `metric` per port in a scrape (lines `metric{node_guid="..",port="..",...} v`).
std::map<PortId, std::string> per_port(const std::string& scrape, const std::string& metric) {
  std::map<PortId, std::string> out;
  const std::string start = "\n" + metric + "{node_guid=\"";
  for (auto at = scrape.find(start); at != std::string::npos; at = scrape.find(start, at + 1)) {
    const auto guid_at = at + start.size();
    const std::string guid = scrape.substr(guid_at, 18);
    const auto port_at = scrape.find("port=\"", guid_at) + 6;
    const unsigned port = static_cast<unsigned>(std::stoul(scrape.substr(port_at)));
    const auto value_at = scrape.find("} ", port_at) + 2;
    out[{guid, port}] = scrape.substr(value_at, scrape.find('\n', value_at) - value_at);
  }
  return out;
}

// Every physical port of the fabric as discovery sees it.
std::set<PortId> all_ports() {
  std::set<PortId> out;
  for (const auto& p : fabric().ports()) {
    if (p.port != 0) out.insert({guid_text(p.node_guid), p.port});
  }
  return out;
}

// The owners `ibpulse shard-of` computes for every node of the fabric.
std::map<std::string, std::vector<unsigned>> owners(unsigned count, unsigned replicas) {
  std::vector<std::string> args = {"shard-of",         "--json",
                                   "--shard.count",    std::to_string(count),
                                   "--shard.replicas", std::to_string(replicas)};
  std::set<std::string> guids;
  for (const auto& p : fabric().ports())
    guids.insert(guid_text(p.node_guid));
  args.insert(args.end(), guids.begin(), guids.end());
  const auto out = run_ibpulse(args);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  std::map<std::string, std::vector<unsigned>> result;
  for (const auto& entry : nlohmann::json::parse(out.out)) {
    result[entry["node_guid"].get<std::string>()] = entry["shards"].get<std::vector<unsigned>>();
  }
  return result;
}

// A distinct value of PortCounters.`counter` on every linked port (`first`, `first` + 1, ...,
// modulo `modulo` when not 0), so a port served with another's counters shows.
std::map<PortId, std::string> plant(const std::string& counter, unsigned first,
                                    unsigned modulo = 0) {
  std::map<PortId, std::string> planted;
  unsigned value = first;
  for (const auto& p : fabric().ports()) {
    if (p.port == 0 || p.remote_node.empty()) continue;
    const std::string v = std::to_string(modulo == 0 ? value : value % modulo);
    ++value;
    fabric().set("PerformanceSet \"" + p.node + "\"[" + std::to_string(p.port) + "] PortCounters." +
                 counter + "=" + v);
    planted[{guid_text(p.node_guid), p.port}] = v;
  }
  return planted;
}

class Shards {
 public:
  Shards(unsigned count, unsigned replicas) {
    // A state directory per shard of this set only: a set started earlier in this process
    // (another test, or a --gtest_repeat round) must not lend its saved totals.
    static unsigned sets = 0;
    const unsigned set = ++sets;
    for (unsigned k = 1; k <= count; ++k) {
      const auto dir = fabric().root() / ("shard-state-" + std::to_string(::getpid()) + "-" +
                                          std::to_string(set) + "-" + std::to_string(k));
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      daemons_.push_back(std::make_unique<Daemon>(
          fabric(), std::vector<std::string>{
                        "--shard.index", std::to_string(k), "--shard.count", std::to_string(count),
                        "--shard.replicas", std::to_string(replicas), "--poll.counters-interval",
                        "300ms", "--counters.publish-interval", "200ms", "--state.dir",
                        dir.string(), "--snmp.community", "public"}));
    }
    for (auto& d : daemons_)
      EXPECT_TRUE(d->wait_for("event=ready", 30s)) << d->log();
  }
  Daemon& operator[](size_t i) { return *daemons_[i]; }
  size_t size() const { return daemons_.size(); }

 private:
  std::vector<std::unique_ptr<Daemon>> daemons_;
};

std::string scrape(const Daemon& d) {
  return http_get(d.web_port(), "/metrics");
}

// ifName of every interface in a context of the shard's SNMP agent ("public" is the default
// context, "public@0x<node GUID>" a node's).
std::map<std::string, std::string> if_names(const Daemon& d, const std::string& community) {
  return parse_varbinds(snmp_tool("snmpbulkwalk -v2c -c " + community + " -On -Oq -t 2 -r 1 " +
                                  "127.0.0.1:" + std::to_string(d.snmp_port()) +
                                  " 1.3.6.1.2.1.31.1.1.1.1")
                            .out);
}

// Waits until every port in `expected` shows `value` of `metric` on the shard that serves it.
bool wait_for_values(Shards& shards, const std::map<PortId, std::string>& expected,
                     const std::string& metric, std::string& last) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::map<PortId, std::string> seen;
    last.clear();
    for (size_t i = 0; i < shards.size(); ++i) {
      if (!shards[i].running()) continue;
      const std::string text = scrape(shards[i]);
      last += text.substr(0, 2000);
      for (auto& [port, value] : per_port(text, metric))
        seen[port] = value;
    }
    bool all = true;
    for (const auto& [port, value] : expected)
      all = all && seen.contains(port) && seen[port] == value;
    if (all) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

TEST(Shard, EveryPortOnExactlyOneShardWithExactCounters) {
  const auto expected_owner = owners(3, 1);
  // A distinct symbol error count on every port, so a port served by a wrong shard or with
  // another port's counters shows.
  const auto planted = plant("SymbolErrorCounter", 100);
  Shards shards(3, 1);
  std::string last;
  ASSERT_TRUE(wait_for_values(shards, planted, "infiniband_port_symbol_error_total", last)) << last;

  std::map<PortId, unsigned> served_by;
  std::map<PortId, int> times;
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::string text = scrape(shards[i]);
    EXPECT_NE(text.find("\nibpulse_shard_info{count=\"3\",index=\"" + std::to_string(i + 1) +
                        "\",replicas=\"1\"} 1\n"),
              std::string::npos)
        << text.substr(text.find("ibpulse_shard"), 400);
    for (const auto& [port, info] : per_port(text, "infiniband_port_info")) {
      ++times[port];
      served_by[port] = static_cast<unsigned>(i + 1);
    }
    // Exact counters on the shard's own ports only.
    for (const auto& [port, v] : per_port(text, "infiniband_port_symbol_error_total")) {
      const auto it = planted.find(port);  // unlinked ports were left at 0
      EXPECT_EQ(v, it != planted.end() ? it->second : "0") << port.first << ":" << port.second;
    }
  }
  // Each shard's SNMP agent serves its own ports, and the contexts of its own nodes only.
  for (size_t i = 0; i < shards.size(); ++i) {
    const auto shard = static_cast<unsigned>(i + 1);
    size_t own_ports = 0;
    std::string own_node;
    std::string other_node;
    for (const auto& [port, by] : served_by) {
      if (by == shard) {
        ++own_ports;
        own_node = port.first;
      } else {
        other_node = port.first;
      }
    }
    EXPECT_EQ(if_names(shards[i], "public").size(), own_ports) << "shard " << shard;
    EXPECT_FALSE(if_names(shards[i], "public@" + own_node).empty()) << own_node;
    EXPECT_TRUE(if_names(shards[i], "public@" + other_node).empty()) << other_node;
  }
  EXPECT_EQ(times.size(), all_ports().size());
  for (const auto& port : all_ports()) {
    EXPECT_EQ(times[port], 1) << port.first << ":" << port.second;
    EXPECT_EQ(served_by[port], expected_owner.at(port.first).front())
        << port.first << ":" << port.second;
  }
  // The split is real: no shard holds everything.
  std::set<unsigned> used;
  for (const auto& [port, shard] : served_by)
    used.insert(shard);
  EXPECT_EQ(used.size(), 3u);
}

TEST(Shard, ReplicasServeEveryPortTwiceAndAKilledShardLosesNone) {
  const auto expected_owners = owners(3, 2);
  const auto errors = plant("SymbolErrorCounter", 700);
  Shards shards(3, 2);
  // Both replicas of a port export the same value: every shard shows each of its linked ports'
  // planted count.
  for (size_t i = 0; i < shards.size(); ++i) {
    std::map<PortId, std::string> shown;
    const bool all = eventually(
        [&] {
          shown = per_port(scrape(shards[i]), "infiniband_port_symbol_error_total");
          for (const auto& [port, value] : shown) {
            const auto it = errors.find(port);
            if (it != errors.end() && it->second != value) return false;
          }
          return !shown.empty();
        },
        20s);
    EXPECT_TRUE(all) << "shard " << i + 1;
  }
  std::map<PortId, int> times;
  for (size_t i = 0; i < shards.size(); ++i) {
    for (const auto& [port, info] : per_port(scrape(shards[i]), "infiniband_port_info")) {
      ++times[port];
      const auto& o = expected_owners.at(port.first);
      EXPECT_NE(std::find(o.begin(), o.end(), i + 1), o.end())
          << port.first << ":" << port.second << " on shard " << i + 1;
    }
  }
  for (const auto& port : all_ports())
    EXPECT_EQ(times[port], 2) << port.first << ":" << port.second;

  shards[1].signal(SIGKILL);
  // New counts after the kill reach every linked port through the shards left.
  const auto planted = plant("LinkDownedCounter", 250, 250);  // 8 bits wide
  std::string last;
  EXPECT_TRUE(wait_for_values(shards, planted, "infiniband_port_link_downed_total", last)) << last;
  // Every port, linked or not, is still served by a shard left (the linked ones' counters
  // were checked above; a port without a link is read every poll.idle-interval).
  std::set<PortId> left;
  for (size_t i : {size_t{0}, size_t{2}}) {
    ASSERT_TRUE(shards[i].running());
    for (const auto& [port, info] : per_port(scrape(shards[i]), "infiniband_port_info"))
      left.insert(port);
  }
  for (const auto& port : all_ports())
    EXPECT_EQ(left.count(port), 1u) << port.first << ":" << port.second;
}

TEST(Shard, BadShardSettingsAreRefusedAtStart) {
  auto out = run_ibpulse({"run", "--shard.index", "4", "--shard.count", "3"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find("shard.index must be from 1 to shard.count (3), got 4"), std::string::npos)
      << out.err;
  out = run_ibpulse({"run", "--shard.count", "2", "--shard.replicas", "3"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find("shard.replicas must be from 1 to shard.count (2), got 3"),
            std::string::npos)
      << out.err;
  out = run_ibpulse({"shard-of", "0x12zz", "--shard.count", "3"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find("bad node GUID '0x12zz'"), std::string::npos) << out.err;
}

TEST(Shard, ShardOfPrintsTheDocumentedOwners) {
  // The owners of the GUID pinned in docs/scale-out.md's example.
  const auto out = run_ibpulse(
      {"shard-of", "0x0002c90300000001", "--shard.count", "3", "--shard.replicas", "2"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, "0x0002c90300000001 1 2\n");
}

}  // namespace
}  // namespace ibpulse::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Enough nodes for each of three shards to get several.
  ::testing::AddGlobalTestEnvironment(
      new ibpulse::testing::SimFabricEnvironment({"--hosts", "12"}));
  return RUN_ALL_TESTS();
}
