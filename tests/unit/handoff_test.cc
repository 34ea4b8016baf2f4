// The hand-offs between the daemon's threads, driven from two (or three) threads at once so
// that the TSan build (./run sanitize) sees them: the sample ring (poller -> converter), the
// clear rings (converter -> every poller) and the snapshot store (converter -> exporters).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ibpulse/collector/clear.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/snapshot.h"
#include "sample_builders.h"

namespace ibpulse::converters {
namespace {

using collector::PortKey;
using collector::RawSample;
using schema::Attribute;
using schema::CounterId;

constexpr uint64_t kGuid = 0x0002c90300000001ull;

// A ring much smaller than what passes through it, so the producer meets it full and the
// consumer meets it empty, many times over.
TEST(Handoff, TheSampleRingCarriesEverySampleInOrderFromThePollerToTheConverter) {
  constexpr uint64_t kSamples = 200000;
  collector::SampleRing ring(64);
  std::thread poller([&] {
    for (uint64_t i = 0; i < kSamples; ++i) {
      RawSample s;
      s.port = PortKey{kGuid, static_cast<uint8_t>(1 + i % 36)};
      s.values[0] = i;
      s.values[collector::kMaxFieldsPerAttribute - 1] = ~i;
      while (!ring.push(s))
        std::this_thread::yield();
    }
  });
  uint64_t next = 0;
  while (next < kSamples) {
    RawSample s;
    if (!ring.pop(s)) {
      std::this_thread::yield();
      continue;
    }
    ASSERT_EQ(s.values[0], next);
    ASSERT_EQ(s.values[collector::kMaxFieldsPerAttribute - 1], ~next);
    ASSERT_EQ(s.port.port, 1 + next % 36);
    ++next;
  }
  poller.join();
  EXPECT_FALSE(ring.read_available());
}

// Every poller's ring gets every request the converter's push accepted, in order; one a full
// ring refused is reported to the converter (push returns false), never half-delivered
// without it knowing.
TEST(Handoff, ClearRequestsReachEveryPollerInOrder) {
  constexpr uint64_t kRequests = 50000;
  collector::ClearRings rings(2, 16);
  std::atomic<bool> done{false};
  uint64_t accepted = 0;
  std::thread converter([&] {
    for (uint64_t i = 1; i <= kRequests; ++i) {
      if (rings.push({PortKey{kGuid, 1}, Attribute::kPortCounters, i})) ++accepted;
    }
    done = true;
  });
  std::vector<uint64_t> received(2, 0);
  std::vector<std::thread> pollers;
  for (size_t p = 0; p < 2; ++p) {
    pollers.emplace_back([&, p] {
      uint64_t last = 0;
      collector::ClearRequest r;
      for (;;) {
        if (rings.ring(p).pop(r)) {
          EXPECT_GT(r.fields, last) << "poller " << p;
          last = r.fields;
          ++received[p];
        } else if (done) {
          if (!rings.ring(p).read_available()) break;
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  converter.join();
  for (auto& t : pollers)
    t.join();
  EXPECT_GT(accepted, 0u);
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_GE(received[p], accepted) << "poller " << p;
    EXPECT_LE(received[p], kRequests) << "poller " << p;
  }
}

// The converter applies readings and publishes a snapshot after each round while an exporter
// thread reads: every snapshot it loads is whole (every port at the same round) and rounds
// never go backwards.
TEST(Handoff, ExportersReadWholeSnapshotsWhileTheConverterPublishes) {
  constexpr uint64_t kRounds = 300;
  constexpr uint8_t kPorts = 24;
  SnapshotStore store;
  std::atomic<bool> finished{false};
  std::thread converter_thread([&] {
    Converter converter(ConverterOptions{});
    auto topology = std::make_shared<collector::Topology>();
    for (uint8_t p = 1; p <= kPorts; ++p) {
      collector::Port port;
      port.key = PortKey{kGuid, p};
      topology->ports.push_back(port);
    }
    const auto t0 = Clock::time_point{} + std::chrono::hours(1);
    converter.set_topology(topology, t0);
    const size_t symbol = testing::field(Attribute::kPortCounters, "SymbolErrorCounter");
    for (uint64_t round = 1; round <= kRounds; ++round) {
      const auto at = t0 + std::chrono::seconds(round);
      for (uint8_t p = 1; p <= kPorts; ++p) {
        RawSample s = testing::sample(PortKey{kGuid, p}, Attribute::kPortCounters, at);
        s.values[symbol] = round;
        converter.apply(s);
      }
      store.publish(converter.snapshot(at, round));
    }
    finished = true;
  });
  uint64_t last = 0;
  uint64_t loads = 0;
  for (;;) {
    const bool end = finished.load();
    const auto snapshot = store.load();
    if (snapshot) {
      ++loads;
      ASSERT_GE(snapshot->sequence, last);
      last = snapshot->sequence;
      ASSERT_EQ(snapshot->ports.size(), kPorts);
      for (const auto& port : snapshot->ports)
        ASSERT_EQ(port.total(CounterId::kSymbolError), snapshot->sequence);
    }
    if (end) break;
  }
  converter_thread.join();
  EXPECT_EQ(last, kRounds);
  EXPECT_GT(loads, 0u);
}

}  // namespace
}  // namespace ibpulse::converters
