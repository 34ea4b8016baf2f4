// The state file: a restored converter continues exactly where the saved one was (totals,
// baselines, latch flags, per-VL counters, event counts, ifIndex numbers); a damaged, foreign
// or other-fabric file is refused with a reason and leaves the converter untouched.
#include "ibpulse/converters/state_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "ibpulse/base/atomic_file.h"
#include "state_file_testing.h"

namespace ibpulse::converters {
namespace {

using namespace state_testing;

TEST(StateFile, RestoredConverterContinuesWhereTheSavedOneWas) {
  const auto t = topology({kA, kB});
  const Converter saved = with_history(t);
  const std::string bytes = encode_state(saved, kPrefix);

  Converter restored({});
  const auto loaded = apply_state(bytes, t, restored);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->ports, 2u);
  EXPECT_EQ(loaded->ports_in_topology, 2u);
  EXPECT_EQ(loaded->if_indexes, 2u);
  EXPECT_EQ(loaded->if_indexes_dropped, 0u);
  restored.set_topology(std::make_shared<collector::Topology>(t));

  for (const PortKey k : {kA, kB}) {
    const auto* a = saved.state(k);
    const auto* b = restored.state(k);
    ASSERT_NE(b, nullptr);
    for (size_t i = 0; i < schema::kCoreCounterCount; ++i) {
      EXPECT_EQ(a->core[i].total, b->core[i].total) << i;
      EXPECT_EQ(a->core[i].last_raw, b->core[i].last_raw) << i;
      EXPECT_EQ(a->core[i].source, b->core[i].source) << i;
      EXPECT_EQ(a->core[i].saturated, b->core[i].saturated) << i;
    }
    EXPECT_EQ(b->present, 0u);  // shown again once read again
    EXPECT_EQ(a->foreign_clears, b->foreign_clears);
    EXPECT_EQ(a->lossy_intervals, b->lossy_intervals);
    EXPECT_EQ(restored.if_indexes().find(k), saved.if_indexes().find(k));
  }
  EXPECT_EQ(total(restored, kA, CounterId::kSymbolError), 35u);  // 10 + 20 + 5
  EXPECT_EQ(total(restored, kA, CounterId::kLinkDowned), 255u);
  EXPECT_TRUE(restored.state(kA)->core[schema::index_of(CounterId::kLinkDowned)].saturated);
  EXPECT_EQ(restored.state(kA)->foreign_clears, 1u);  // SymbolError
  EXPECT_EQ(total(restored, kA, CounterId::kXmitData), 6000u);
  ASSERT_TRUE(restored.state(kB)->extra);
  EXPECT_NE(restored.state(kB)->extra, saved.state(kB)->extra);  // a copy, not shared
  size_t vl_total = 0;
  restored.state(kB)->extra->for_each(
      [&](size_t, const ExtraCounterState& e) { vl_total += e.total; });
  EXPECT_EQ(vl_total, 4242u);

  // The next readings count from the saved baselines: no count lost, none added twice.
  restored.apply(counters(kA, t0 + 1h, 9, 0));
  restored.apply(extended(kA, t0 + 1h, 2500));
  EXPECT_EQ(total(restored, kA, CounterId::kSymbolError), 39u);
  EXPECT_EQ(total(restored, kA, CounterId::kXmitData), 10000u);
  EXPECT_EQ(total(restored, kA, CounterId::kLinkDowned), 255u);  // 0 < 255: a foreign clear
}

TEST(StateFile, IfIndexesSurviveAndNewPortsGetFreshNumbers) {
  const auto t = topology({kA, kB});
  const Converter saved = with_history(t);
  EXPECT_EQ(saved.if_indexes().find(kA), 1u);
  EXPECT_EQ(saved.if_indexes().find(kB), 2u);
  const PortKey k_new{0x0002c90300000000ull, 1};  // sorts first, but numbers are never reused
  const auto grown = topology({k_new, kA, kB});
  Converter restored({});
  ASSERT_TRUE(apply_state(encode_state(saved, kPrefix), grown, restored));
  restored.set_topology(std::make_shared<collector::Topology>(grown));
  EXPECT_EQ(restored.if_indexes().find(kA), 1u);
  EXPECT_EQ(restored.if_indexes().find(kB), 2u);
  EXPECT_EQ(restored.if_indexes().find(k_new), 3u);
  const auto snap = restored.snapshot(t0);
  ASSERT_NE(snap->find(k_new), nullptr);
  EXPECT_EQ(snap->find(k_new)->if_index, 3u);
  EXPECT_EQ(snap->find(kB)->if_index, 2u);
}

TEST(StateFile, PortsGoneFromDiscoveryKeepTheirNumbers) {
  IfIndexTable table;
  table.assign(topology({kA, kB}));
  table.assign(topology({kB}));
  EXPECT_EQ(table.find(kA), 1u);
  ASSERT_EQ(table.by_topology_port().size(), 1u);
  EXPECT_EQ(table.by_topology_port()[0], 2u);
  table.assign(topology({kA, kB}));
  EXPECT_EQ(table.find(kA), 1u);
  EXPECT_EQ(table.size(), 2u);
}

TEST(StateFile, RestoringDropsDuplicateAndOutOfRangeNumbers) {
  IfIndexTable table;
  const PortKey kC{0x0002c90300000003ull, 1};
  const PortKey kD{0x0002c90300000004ull, 1};
  const size_t dropped = table.restore({{kA, 5}, {kB, 5}, {kC, 0}, {kD, 0x80000000u}});
  EXPECT_EQ(dropped, 3u);
  EXPECT_EQ(table.find(kA) + table.find(kB), 5u);  // exactly one of them has 5
  table.assign(topology({kA, kB, kC}));
  EXPECT_EQ(table.find(kC), 7u);  // after 5 and the one port that lost its duplicate: 6
}

struct Refusal {
  std::string name;
  std::function<void(std::string&)> damage;
  std::string reason;
};

TEST(StateFile, UntrustworthyFilesAreRefusedWithTheirReason) {
  const auto t = topology({kA, kB});
  const std::string good = encode_state(with_history(t), kPrefix);
  const std::vector<Refusal> cases = {
      {"empty", [](std::string& b) { b.clear(); }, "too short"},
      {"truncated", [](std::string& b) { b.resize(b.size() - 20); }, "checksum mismatch"},
      {"flipped bit", [](std::string& b) { b[100] ^= 0x10; }, "checksum mismatch"},
      {"not ours", [](std::string& b) { b.replace(0, 8, "GARBAGE!"); }, "not an ibpulse state"},
      {"newer version", [](std::string& b) { b[8] = 9; }, "version 9"},
      {"more counter names than bytes",
       [](std::string& b) {
         std::memset(b.data() + (44 + 26 + 4), 0x7f, 4);  // the table's counter count
         reseal(b);
       },
       "damaged counter table"},
      // Two ifIndex records, the counter table, then the first port's present mask at 42
      // bytes into its record: bit 63 names no counter.
      {"present past the counters",
       [](std::string& b) {
         b[counter_table_end(b, 2) + 42 + 7] = static_cast<char>(0x80);
         reseal(b);
       },
       "damaged port record"},
      {"huge port count",
       [](std::string& b) {
         std::memset(b.data() + 28, 0x7f, 8);
         reseal(b);
       },
       "does not fit the file"},
  };
  for (const auto& c : cases) {
    std::string bytes = good;
    c.damage(bytes);
    Converter fresh({});
    const auto loaded = apply_state(bytes, t, fresh);
    ASSERT_FALSE(loaded) << c.name;
    EXPECT_NE(loaded.error().find(c.reason), std::string::npos) << c.name << ": " << loaded.error();
    EXPECT_EQ(fresh.port_count(), 0u) << c.name;
  }
}

TEST(StateFile, APartialDiscoveryIsStillThisFabric) {
  const auto t = topology({kA, kB});
  Converter fresh({});
  const auto loaded =
      apply_state(encode_state(with_history(t), kPrefix), topology({kB}), fresh);  // A is down
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->ports, 2u);
  EXPECT_EQ(loaded->ports_in_topology, 1u);
}

// A daemon polling two subnets saves under the first one's prefix; after a restart its first
// topology may hold only the other subnet (its prefix on top): still this fabric while the
// first subnet is not discovered (the shared ports decide) or once its prefix is known.
TEST(StateFile, AnyOfTheDaemonsSubnetPrefixesIsThisFabric) {
  const auto t = topology({kA, kB});
  const std::string bytes = encode_state(with_history(t), kPrefix);
  auto rail_b_first = topology({kB}, 0xfec0000000000000ull);
  rail_b_first.subnets = {{0, "mlx5_0:1"}, {0xfec0000000000000ull, "mlx5_1:1"}};
  Converter fresh({});
  auto loaded = apply_state(bytes, rail_b_first, fresh);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->ports, 2u);
  rail_b_first.subnets[0].prefix = kPrefix;
  Converter again({});
  ASSERT_TRUE(apply_state(bytes, rail_b_first, again));
  rail_b_first.subnets[0].prefix = 0xfe00000000000000ull;  // neither subnet saved it
  Converter other({});
  loaded = apply_state(bytes, rail_b_first, other);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().find("subnet prefix"), std::string::npos) << loaded.error();
}

TEST(StateFile, FilesFromAnotherFabricAreRefused) {
  const auto t = topology({kA, kB});
  const std::string bytes = encode_state(with_history(t), kPrefix);
  Converter fresh({});
  auto loaded = apply_state(bytes, topology({kA, kB}, 0xfec0000000000000ull), fresh);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().find("subnet prefix"), std::string::npos) << loaded.error();
  loaded = apply_state(bytes, topology({PortKey{0x1234, 1}}), fresh);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().find("none of its 2 ports"), std::string::npos) << loaded.error();
  EXPECT_EQ(fresh.port_count(), 0u);
  EXPECT_EQ(fresh.if_indexes().size(), 0u);
}

// A directory where the file should be: an error naming it, never an exception (libstdc++'s
// filebuf throws on EISDIR while reading).
TEST(StateFile, ADirectoryInThePlaceOfTheFileIsAnErrorNotACrash) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibpulse-state-dir-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "counters.state");
  const auto read = read_whole_file(dir / "counters.state");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("is not a regular file"), std::string::npos) << read.error();
  std::filesystem::remove_all(dir);
}

TEST(StateFile, WritesAtomicallyReadsBackAndSetsAside) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-state-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "counters.state";
  auto absent = read_whole_file(path);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->found);
  ASSERT_TRUE(write_file_atomically(path, "first"));
  ASSERT_TRUE(write_file_atomically(path, std::string("second\0x", 8)));
  // No temporary left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  auto read = read_whole_file(path);
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->found);
  EXPECT_EQ(read->bytes, std::string("second\0x", 8));
  auto moved = set_aside(path);
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::exists(*moved));
  EXPECT_NE(moved->string().find("counters.state.rejected-"), std::string::npos);
  const auto unwritable = write_file_atomically(dir / "missing-dir" / "x", "y");
  ASSERT_FALSE(unwritable);
  EXPECT_NE(unwritable.error().find("cannot create"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ibpulse::converters
