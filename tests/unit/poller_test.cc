// The poller's scheduling, limits, retries and accounting against a scripted fake MAD engine
// on a virtual clock (poller_harness.h): values asserted, no simulator, no sleeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "poller_harness.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;

const PortKey kLinked[] = {kHca1,           kHca2, kHca3, {kSwitchGuid, 1}, {kSwitchGuid, 2},
                           {kSwitchGuid, 3}};

TEST(PollerFake, ReadsEveryLinkedPortOncePerCountersIntervalAndIdlePortsSlowly) {
  PollerHarness h;
  ASSERT_TRUE(h.run(10).ok());
  ASSERT_EQ(h.sweeps.size(), 10u);
  for (size_t i = 0; i < h.sweeps.size(); ++i) {
    EXPECT_EQ(h.sweeps[i].number, i + 1);
    EXPECT_EQ(h.sweeps[i].ports, kLinkedPorts);
    EXPECT_EQ(h.sweeps[i].stale, 0u);
  }
  for (PortKey p : kLinked) {
    // ibsim-like PMAs (CapabilityMask 0x1200/0x1300, CapabilityMask2 0): both attributes.
    EXPECT_EQ(h.fabric.attempts(p, Attribute::kPortCounters), 10u);
    EXPECT_EQ(h.fabric.attempts(p, Attribute::kPortCountersExtended), 10u);
    EXPECT_EQ(h.fabric.attempts(p, Attribute::kPortRcvErrorDetails), 1u) << "every 10 s";
  }
  EXPECT_EQ(h.fabric.attempts(kSwitchIdle, Attribute::kPortCounters), 1u) << "every 60 s";
  EXPECT_EQ(h.fabric.attempts(kSwitchIdle, Attribute::kPortCountersExtended), 0u);
  EXPECT_EQ(h.fabric.attempts(kSwitchIdle, Attribute::kPortRcvErrorDetails), 0u);
  EXPECT_EQ(h.fabric.attempts({kSwitchGuid, 0}, Attribute::kClassPortInfo), 1u);
  EXPECT_EQ(h.stats.mad.sent, h.stats.mad.answered);
  EXPECT_EQ(h.stats.ring_drops, 0u);
}

TEST(PollerFake, SamplesCarryTheModelsCounters) {
  PollerHarness h;
  h.fabric.set(kHca2, schema::CounterId::kSymbolError, 1234);
  h.fabric.set(kHca2, schema::CounterId::kXmitData, 0x1'2345'6789);  // past 32 bits
  ASSERT_TRUE(h.run(2).ok());
  const auto narrow = h.of(kHca2, Attribute::kPortCounters);
  ASSERT_EQ(narrow.size(), 2u);
  EXPECT_EQ(narrow[0].values[0], 1234u);          // SymbolErrorCounter
  EXPECT_EQ(narrow[0].values[13], 0xFFFF'FFFFu);  // PortXmitData: latched at 32 bits
  const auto wide = h.of(kHca2, Attribute::kPortCountersExtended);
  ASSERT_EQ(wide.size(), 2u);
  EXPECT_EQ(wide[1].values[0], 0x1'2345'6789u);  // PortXmitData, 64-bit
}

TEST(PollerFake, PerNodeLimitIsNeverExceeded) {
  PollerHarness h;
  h.options.mad.per_node = 2;
  h.options.intervals.counters = 10ms;  // every port due at once, reads slower than that
  h.fabric.node(kSwitchGuid).latency = 5ms;
  ASSERT_TRUE(h.run(20).ok());
  EXPECT_EQ(h.fabric.wire(kSwitchGuid).max_in_flight, 2u) << "reached, never passed";
  for (PortKey hca : {kHca1, kHca2, kHca3})
    EXPECT_EQ(h.fabric.wire(hca.node_guid).max_in_flight, 2u);  // PortCounters + Extended
}

TEST(PollerFake, TheWindowIsNeverExceeded) {
  PollerHarness h;
  h.options.mad.window = 3;
  h.options.intervals.counters = 10ms;
  for (uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid})
    h.fabric.node(guid).latency = 5ms;
  ASSERT_TRUE(h.run(20).ok());
  EXPECT_EQ(h.fabric.max_in_flight, 3u);
  EXPECT_EQ(h.sweeps.back().stale, 0u);
}

// A fabric far slower than the intervals has every port due at once: the reads wait in the
// scheduler, and the engine holds a bounded backlog of unsent requests (poller.cc issue_due),
// not a whole sweep's (at 70,000 ports that was 260 MB of requests).
TEST(PollerFake, ASlowFabricsBacklogWaitsInTheSchedulerNotInTheEngine) {
  PollerHarness h;
  uint16_t lid = 100;
  size_t linked = kLinkedPorts;
  for (uint64_t s = 0; s < 40; ++s) {
    const uint64_t sw = 0x0002c90400000000ull + s;
    h.fabric.add_switch(sw, lid++, 36);
    for (uint8_t p = 1; p <= 33; ++p) {
      const uint64_t hca = 0x0002c90500000000ull + s * 64 + p;
      h.fabric.add_hca(hca, lid++);
      h.fabric.link({hca, 1}, {sw, p});
      linked += 2;
    }
  }
  h.options.intervals.counters = 10ms;
  h.options.intervals.details = 10ms;  // reads are spread over an interval: 10 ms is at once
  ASSERT_TRUE(h.run(2).ok());
  ASSERT_EQ(h.sweeps.size(), 2u);
  EXPECT_EQ(h.sweeps[1].ports, linked);
  EXPECT_EQ(h.sweeps[1].stale, 0u);
  // 2,646 linked ports, each with PortCounters, PortCountersExtended and seven detail
  // attributes due in the first sweep: 23,800 requests; the backlog is 16 windows (of the
  // default 256: 4,096 requests, above the floor of 2,048) plus one take (64 items of at most 9
  // reads).
  ASSERT_EQ(h.options.mad.window, 256u);
  EXPECT_GT(h.fabric.max_queued, 4096u) << "the bound was reached";
  EXPECT_LE(h.fabric.max_queued, 4096u + 64u * 9u);
}

TEST(PollerFake, RetriesLostAttemptsAndCountsThem) {
  PollerHarness h;
  h.fabric.node(kHca1.node_guid).loss = 0.3;
  h.fabric.set(kHca1, schema::CounterId::kLinkDowned, 7);
  ASSERT_TRUE(h.run(20).ok());
  const MadStats& m = h.stats.mad;
  EXPECT_GT(m.attempt_timeouts, 0u);
  // Every lost attempt was retried, unless it was the last one a request had.
  EXPECT_EQ(m.retried, m.attempt_timeouts - m.failed_for(collector::MadFailure::kTimeout));
  EXPECT_EQ(m.sent, m.answered + m.attempt_timeouts);
  EXPECT_GT(h.fabric.attempts(kHca1, Attribute::kPortCounters), 20u);
  // The lossless node: one attempt per read, none retried (reads of the 21st sweep, started
  // before the run stopped, count on both sides).
  EXPECT_GE(h.fabric.attempts(kHca2, Attribute::kPortCounters), 20u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCounters),
            h.of(kHca2, Attribute::kPortCounters).size());
  // Stale ports are exactly the reads that failed after every retry.
  size_t stale = 0;
  for (const SweepSummary& s : h.sweeps)
    stale += s.stale;
  EXPECT_EQ(stale, h.failed(kHca1, Attribute::kPortCounters));
  for (const RawSample& s : h.of(kHca1, Attribute::kPortCounters)) {
    if (s.failure == MadFailure::kNone) {
      EXPECT_EQ(s.values[2], 7u);  // LinkDownedCounter
    }
  }
}

TEST(PollerFake, ANodeThatNeverAnswersIsStaleAndTheOthersAreNot) {
  PollerHarness h;
  h.fabric.node(kHca2.node_guid).loss = 1.0;
  ASSERT_TRUE(h.run(3).ok());
  ASSERT_EQ(h.sweeps.size(), 3u);
  for (const SweepSummary& s : h.sweeps) {
    EXPECT_EQ(s.ports, kLinkedPorts);
    EXPECT_EQ(s.stale, 1u);
    EXPECT_GE(s.seconds, 3.0) << "200 + 400 + 800 + 1600 ms before giving up";
  }
  for (PortKey p : kLinked) {
    const size_t reads = h.of(p, Attribute::kPortCounters).size();
    EXPECT_EQ(h.failed(p, Attribute::kPortCounters), p == kHca2 ? reads : 0u) << p.node_guid;
  }
  for (const RawSample& s : h.of(kHca2, Attribute::kPortCounters))
    EXPECT_EQ(s.failure, MadFailure::kTimeout);
  // Its ClassPortInfo never came: PortCounters only, 4 attempts per read.
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCountersExtended), 0u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCounters),
            4 * h.of(kHca2, Attribute::kPortCounters).size());
}

// A node whose ClassPortInfo answer was lost (all four attempts) is not read as a node without
// capabilities (its narrow counters, then the 64-bit ones: two source switches, and after a
// restart a total below the exported one): its ports wait, stale, until it answers.
TEST(PollerFake, ANodeWhoseClassPortInfoWasLostIsReadOnlyOnceItAnswers) {
  PollerHarness h;
  h.fabric.node(kHca2.node_guid).lose_next[0x0001] = 4;  // the first ask, every attempt
  ASSERT_TRUE(h.run(8).ok());
  EXPECT_EQ(h.fabric.attempts({kHca2.node_guid, 0}, Attribute::kClassPortInfo), 5u);
  const auto narrow = h.of(kHca2, Attribute::kPortCounters);
  const auto wide = h.of(kHca2, Attribute::kPortCountersExtended);
  ASSERT_FALSE(narrow.empty());
  EXPECT_EQ(narrow.size(), wide.size()) << "never one copy without the other";
  for (const RawSample& s : narrow)
    EXPECT_NE(s.superseded, 0u) << "read with its capabilities";
  for (const SweepSummary& sweep : h.sweeps)
    EXPECT_EQ(sweep.stale, 0u) << "asked again before its first read was due";
  size_t pending = 0;
  for (const auto& w : h.warnings)
    pending += w.find("event=class_port_info_pending nodes=1") != std::string::npos;
  EXPECT_EQ(pending, 1u);

  // Lost twice: the first sweep finds its port waiting, stale; read from the next on.
  PollerHarness twice;
  twice.fabric.node(kHca2.node_guid).lose_next[0x0001] = 8;
  ASSERT_TRUE(twice.run(8).ok());
  EXPECT_EQ(twice.fabric.attempts({kHca2.node_guid, 0}, Attribute::kClassPortInfo), 9u);
  EXPECT_EQ(twice.sweeps.front().stale, 1u);
  EXPECT_EQ(twice.sweeps.back().stale, 0u);
  for (const RawSample& s : twice.of(kHca2, Attribute::kPortCounters))
    EXPECT_NE(s.superseded, 0u);
}

// A rediscovery asks every node again; one whose answer is lost then keeps the last one, and
// its 64-bit counters go on being read.
TEST(PollerFake, ARediscoveryThatLosesAClassPortInfoKeepsTheLastOne) {
  PollerHarness h;
  h.options.rediscover = 5s;
  h.on_discover = [&](unsigned discovery, Topology&) {
    if (discovery == 2) h.fabric.node(kHca2.node_guid).lose_next[0x0001] = 4;
  };
  ASSERT_TRUE(h.run(12).ok());
  ASSERT_EQ(h.discoveries, 3u);
  EXPECT_EQ(h.fabric.attempts({kHca2.node_guid, 0}, Attribute::kClassPortInfo), 3u + 3u)
      << "once per discovery, the second's four attempts lost";
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCountersExtended), 12u) << "every sweep";
  for (const SweepSummary& s : h.sweeps)
    EXPECT_EQ(s.stale, 0u) << s.number;
}

// Three asks unanswered: the node is read narrow, each sample marked as that fallback (the
// converter keeps its counters on their 64-bit copy), until a discovery's ask is answered.
TEST(PollerFake, ANodeGivenUpOnIsReadNarrowAsAFallbackUntilADiscoveryAsksAgain) {
  PollerHarness h;
  h.options.rediscover = 8s;
  h.fabric.node(kHca2.node_guid).lose_next[0x0001] = 4 * 3;  // three asks, four attempts each
  ASSERT_TRUE(h.run(14).ok());
  ASSERT_GE(h.discoveries, 2u);
  size_t given_up = 0;
  for (const auto& w : h.warnings)
    given_up += w.find("event=class_port_info_unanswered") != std::string::npos;
  EXPECT_EQ(given_up, 1u);
  size_t fallback = 0;
  size_t planned = 0;
  for (const RawSample& s : h.of(kHca2, Attribute::kPortCounters)) {
    if (s.narrow_fallback) {
      ++fallback;
      EXPECT_EQ(s.superseded, 0u) << "its data counters read from this copy";
    } else {
      ++planned;
      EXPECT_NE(s.superseded, 0u) << "read with its capabilities, after the rediscovery";
    }
  }
  EXPECT_GT(fallback, 0u);
  EXPECT_GT(planned, 0u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortCountersExtended), planned);
  for (const RawSample& s : h.of(kHca1, Attribute::kPortCounters))
    EXPECT_FALSE(s.narrow_fallback) << "a node that answered";
}

TEST(PollerFake, AnAttributeANodeRefusesIsNotAskedAgainUntilRediscovery) {
  PollerHarness h;
  h.fabric.node(kHca1.node_guid).status[0x15] = testing::kStatusUnsupported;
  h.options.rediscover = 30s;
  ASSERT_TRUE(h.run(1000, 49s).ok());  // discoveries at 0 s and 30 s; details every 10 s
  ASSERT_EQ(h.discoveries, 2u);
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortRcvErrorDetails), 2u) << "once per discovery";
  EXPECT_EQ(h.fabric.attempts(kHca1, Attribute::kPortXmitDiscardDetails), 5u);
  EXPECT_EQ(h.fabric.attempts(kHca2, Attribute::kPortRcvErrorDetails), 5u);
  size_t warned = 0;
  for (const auto& w : h.warnings)
    warned += w.find("event=attribute_unsupported") != std::string::npos;
  EXPECT_EQ(warned, 2u);
  EXPECT_EQ(h.stats.mad.failed_for(collector::MadFailure::kStatus), 2u);
}

TEST(PollerFake, BusyIsRetriedThenReportedAsTimeout) {
  PollerHarness h;
  h.fabric.node(kHca3.node_guid).status[0x12] = testing::kStatusBusy;
  ASSERT_TRUE(h.run(2).ok());
  EXPECT_EQ(h.fabric.attempts(kHca3, Attribute::kPortCounters), 8u) << "2 reads x 4 attempts";
  EXPECT_EQ(h.failed(kHca3, Attribute::kPortCounters), 2u);
  EXPECT_EQ(h.sweeps[1].stale, 1u);
}

// A link that changed between two PortInfo refreshes is seen first by the next discovery:
// the poller reports it as a refresh would (the daemon logs and the converter follow it), and
// reports nothing for ports that did not change.
TEST(PollerFake, ALinkChangeSeenFirstByADiscoveryIsReported) {
  PollerHarness h;
  h.options.rediscover = 5s;
  h.on_discover = [](unsigned discovery, Topology& t) {
    for (Port& p : t.ports) {
      if (discovery >= 2 && p.key == kHca2) p.link.width_active = 1;  // 4X trained down to 1X
    }
  };
  ASSERT_TRUE(h.run(12).ok());
  ASSERT_GE(h.discoveries, 2u);
  ASSERT_EQ(h.port_changes.size(), 1u);
  EXPECT_EQ(h.port_changes[0].first.key, kHca2);
  EXPECT_EQ(h.port_changes[0].first.link.width_active, 1u);
  EXPECT_EQ(h.port_changes[0].second.width_active, 2u);  // 4X
  EXPECT_EQ(h.stats.port_changes, 1u);
}

// IB-SMA-MIB's port objects follow the PortInfo refreshes too: a capability mask that changed
// without a link change reaches the converter (port_refreshed), once, and is no link change.
TEST(PollerFake, APortInfoChangeWithoutALinkChangeIsAPortRefresh) {
  PollerHarness h;
  h.options.intervals.port_info = 1s;
  h.fabric.smp_agent = true;  // the engine sends SMPs
  h.on_sweep = [&](const SweepSummary& s) {
    if (s.number == 3) h.fabric.node(kHca2.node_guid).port_info_capability_mask = 0xc04a;
  };
  ASSERT_TRUE(h.run(10).ok());
  size_t changed = 0;
  for (const Port& p : h.port_refreshes)
    changed += p.key == kHca2 && p.sma.capability_mask == 0xc04a;
  EXPECT_EQ(changed, 1u) << h.port_refreshes.size() << " refreshes";
  EXPECT_TRUE(h.port_changes.empty());
}

// poll.partition-tables off: no PKeyTable SMP (attribute 0x16; its modifier's low byte is the
// block, 0 here) is sent, though PortInfo refreshes go on; on, every node is asked.
TEST(PollerFake, PartitionTablesOffSendNoPKeyTableSmp) {
  for (const bool on : {true, false}) {
    PollerHarness h;
    h.fabric.smp_agent = true;
    h.take_partitions = true;
    h.on_discover = [](unsigned, Topology& t) {  // 32-entry tables (NodeInfo PartitionCap)
      for (Node& n : t.nodes)
        n.sma.partition_cap = 32;
    };
    h.options.intervals.port_info = 1s;
    h.options.partition_tables = on;
    ASSERT_TRUE(h.run(4).ok());
    uint64_t asked = 0;
    for (const uint64_t guid : {kSwitchGuid, kHca1.node_guid, kHca2.node_guid, kHca3.node_guid})
      asked += h.fabric.smp_attempts({guid, 0}, 0x16);
    EXPECT_EQ(asked > 0, on) << "partition tables " << on << ": " << asked << " PKeyTable SMPs";
    EXPECT_EQ(h.stats.partition_reads + h.stats.partition_read_failures > 0, on);
    EXPECT_GT(h.stats.port_info_reads, 0u);
  }
}

// The subnet managers' SMInfo (attribute 0x20) is asked of the ports whose PortInfo says IsSM
// (CapabilityMask bit 1) only, in rounds every poll.port-info-interval, each handed on when it
// ends.
TEST(PollerFake, SmInfoIsAskedOfThePortsThatSayIsSmInRounds) {
  PollerHarness h;
  h.fabric.smp_agent = true;
  h.options.intervals.port_info = 1s;
  h.take_subnet_managers = true;
  h.fabric.node(kHca2.node_guid).port_info_capability_mask = 0xc04a;  // IsSM
  ASSERT_TRUE(h.run(8).ok());
  EXPECT_GT(h.fabric.smp_attempts({kHca2.node_guid, 0}, 0x20), 0u);
  EXPECT_EQ(h.fabric.smp_attempts({kHca1.node_guid, 0}, 0x20), 0u);
  EXPECT_EQ(h.fabric.smp_attempts({kHca3.node_guid, 0}, 0x20), 0u);
  EXPECT_EQ(h.fabric.smp_attempts({kSwitchGuid, 0}, 0x20), 0u);
  EXPECT_GE(h.sm_rounds.size(), 3u) << "a round per second, after the first refresh";
  EXPECT_GT(h.stats.sm_info_reads + h.stats.sm_info_failures, 0u);
}

// The master SM a port's PortInfo names (MasterSMLID) is asked too, though its node's PortInfo
// said no IsSM when discovery read it: a switch's port 0 is read at discovery only.
TEST(PollerFake, SmInfoIsAskedOfTheMasterThePortsName) {
  PollerHarness h;
  h.fabric.smp_agent = true;
  h.options.intervals.port_info = 1s;
  h.take_subnet_managers = true;
  const Topology model = h.fabric.topology();  // find_node() points into it
  const collector::Node* sw = model.find_node(kSwitchGuid);
  ASSERT_NE(sw, nullptr);
  const uint16_t switch_lid = sw->lid;
  h.fabric.node(kHca1.node_guid).port_info_master_sm_lid = switch_lid;
  ASSERT_TRUE(h.run(8).ok());
  EXPECT_GT(h.fabric.smp_attempts({kSwitchGuid, 0}, 0x20), 0u) << "LID " << switch_lid;
  EXPECT_EQ(h.fabric.smp_attempts({kHca1.node_guid, 0}, 0x20), 0u);
  EXPECT_EQ(h.fabric.smp_attempts({kHca2.node_guid, 0}, 0x20), 0u);
}

// A shard keeps only its own nodes' ports: the master SM on a CA another shard owns is still
// asked, found by its node's LID, so every shard judges the same master.
TEST(PollerFake, EveryShardAsksTheMasterOnACaOfAnotherShard) {
  for (unsigned k = 1; k <= 2; ++k) {
    PollerHarness h;
    h.fabric.smp_agent = true;
    h.options.intervals.port_info = 1s;
    h.options.shard = ShardSpec{k, 2, 1};
    h.take_subnet_managers = true;
    const uint16_t sm_lid = h.fabric.topology().find_node(kHca1.node_guid)->lid;
    h.fabric.node(kHca1.node_guid).port_info_capability_mask = 0xc04a;  // IsSM
    for (const PortKey hca : {kHca1, kHca2, kHca3})
      h.fabric.node(hca.node_guid).port_info_master_sm_lid = sm_lid;
    const bool owner = h.options.shard.owns(kHca1.node_guid);
    const bool owns_a_ca =
        owner || h.options.shard.owns(kHca2.node_guid) || h.options.shard.owns(kHca3.node_guid);
    ASSERT_TRUE(owns_a_ca) << "shard " << k << " names no master: the test needs another GUID";
    ASSERT_TRUE(h.run(8).ok());
    SCOPED_TRACE("shard " + std::to_string(k) + (owner ? ", the owner" : ""));
    EXPECT_GT(h.fabric.smp_attempts({kHca1.node_guid, 0}, 0x20), 0u);
  }
}

// A start from a cached topology (discovery.cache-max-age) trusts it no longer than a discovery:
// a cache 4 minutes old with a 5-minute discovery interval is rediscovered a minute in.
TEST(PollerFake, ACachedStartIsRediscoveredWhenTheCacheIsAnIntervalOld) {
  for (const bool cached : {true, false}) {
    PollerHarness h;
    h.options.rediscover = 5min;
    h.on_discover = [cached](unsigned discovery, Topology& t) {
      t.from_cache = cached && discovery == 1;
      t.cache_age = 4min;
    };
    ASSERT_TRUE(h.run(90).ok());  // 90 s of sweeps
    EXPECT_EQ(h.discoveries, cached ? 2u : 1u) << "cached " << cached;
    size_t logged = 0;
    for (const auto& w : h.warnings)
      logged += w.find("event=discovery_cached") != std::string::npos &&
                w.find("age_seconds=240") != std::string::npos;
    EXPECT_EQ(logged, cached ? 1u : 0u);
  }
}

// The discovery cache is a restart's record of the nodes to keep polling: a discovery that
// missed a known node leaves the last cache in place, the next whole discovery replaces it.
// The cache each of three discoveries found, the second one altered by `lose`, and the cache
// after them.
std::vector<std::string> caches_around_a_lossy_discovery(const std::function<void(Topology&)>& lose,
                                                         PollerStats& stats) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-poller-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto cache = dir / "topology-default-0.ibnd";  // the stem, local CA and port named
  const auto text = [](const std::filesystem::path& p) {
    std::ostringstream out;
    out << std::ifstream(p).rdbuf();
    return out.str();
  };
  PollerHarness h;
  h.options.rediscover = 5s;
  h.options.discovery.cache_file = dir / "topology";
  std::vector<std::string> cache_at;  // the cache when each discovery began
  h.on_discover = [&](unsigned discovery, Topology& t) {
    cache_at.push_back(text(cache));
    std::ofstream(pending_cache_file(cache)) << discovery;  // what discover() would write
    if (discovery == 2) lose(t);
  };
  EXPECT_TRUE(h.run(12).ok());
  cache_at.push_back(text(cache));
  stats = h.stats;
  std::filesystem::remove_all(dir);
  return cache_at;
}

TEST(PollerFake, ADiscoveryThatMissedANodeDoesNotReplaceTheCache) {
  PollerStats stats;
  const auto caches = caches_around_a_lossy_discovery(
      [](Topology& t) {
        std::erase_if(t.nodes, [](const Node& n) { return n.guid == kHca2.node_guid; });
        std::erase_if(t.ports, [](const Port& p) { return p.key.node_guid == kHca2.node_guid; });
      },
      stats);
  EXPECT_EQ(caches, (std::vector<std::string>{"", "1", "1", "3"}))
      << "none yet, the first whole, the second missed Hca2, the third whole";
  EXPECT_EQ(stats.missing_nodes, 0u);
}

// A discovery that found every node but lost a port's PortInfo would give the next run that
// port without a LID: the cache is not replaced either.
TEST(PollerFake, ADiscoveryThatLostAPortInfoDoesNotReplaceTheCache) {
  PollerStats stats;
  const auto caches = caches_around_a_lossy_discovery(
      [](Topology& t) {
        for (Port& p : t.ports) {
          if (p.key != kHca2) continue;
          p.lid = 0;
          p.link = {};
        }
      },
      stats);
  EXPECT_EQ(caches, (std::vector<std::string>{"", "1", "1", "3"}));
  EXPECT_EQ(stats.ports_without_port_info, 0u) << "the third read it";
}

// Shards discover the whole fabric each: shard k of N has its second discovery (k-1)/N of an
// interval after shard 1's, and every one after it an interval apart, so their SMP bursts
// never coincide.
TEST(PollerFake, ShardsStaggerTheirDiscoveriesByAShareOfTheInterval) {
  using namespace std::chrono_literals;
  constexpr unsigned kShards = 4;
  for (unsigned k = 1; k <= kShards; ++k) {
    PollerHarness h;
    h.options.rediscover = 4min;
    h.options.shard = ShardSpec{k, kShards, 1};
    const auto start = h.clock.now();
    std::vector<std::chrono::steady_clock::duration> at;
    h.on_discover = [&](unsigned, Topology&) { at.push_back(h.clock.now() - start); };
    ASSERT_TRUE(h.run(100000, 9min + 30s).ok());
    SCOPED_TRACE("shard " + std::to_string(k));
    ASSERT_GE(at.size(), 2u);
    EXPECT_EQ(at[0], std::chrono::steady_clock::duration::zero());
    const auto second = 4min + 1min * (k - 1);  // (k-1)/4 of 4 min after shard 1's
    EXPECT_GE(at[1], second);
    EXPECT_LT(at[1], second + 1s);  // the poller looks at least every 100 ms
    // Staggered once: the next comes one interval later (within the run for shards 1 and 2).
    EXPECT_EQ(at.size(), k <= 2 ? 3u : 2u);
    if (at.size() == 3) {
      EXPECT_GE(at[2] - at[1], 4min);
      EXPECT_LT(at[2] - at[1], 4min + 1s);
    }
  }
}

}  // namespace
}  // namespace ibpulse::collector
