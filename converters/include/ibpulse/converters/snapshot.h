#pragma once
// What exporters read: an immutable picture of every port's counters, derived IF-MIB values,
// rates and state, published by the converter with a pointer swap. Readers never wait for
// more than a pointer copy and never see a half-updated port.
//
// Thread safety: a FabricSnapshot is immutable once published; SnapshotStore is thread-safe.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "ibpulse/collector/partitions.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/converters/accumulator.h"
#include "ibpulse/converters/extra_counters.h"
#include "ibpulse/converters/if_mib.h"
#include "ibpulse/converters/interface_status.h"
#include "ibpulse/converters/mapped_allocator.h"
#include "ibpulse/converters/vl_traffic.h"

namespace ibpulse::converters {

using Clock = std::chrono::steady_clock;

struct PortSnapshot {
  collector::PortKey key;
  uint32_t if_index = 0;   // IF-MIB ifIndex, stable (if_index.h)
  PortTotals totals;       // scaled: octets, packets, events
  uint64_t present = 0;    // bit per core counter: read at least once from an advertised source
  uint64_t saturated = 0;  // bit per core counter: its narrow copy is latched at all ones
  // Bit per core counter: read by the last run (restored from the state file), not yet by this
  // one. Its total is held back until read: the saved one can be older than the last exported.
  uint64_t awaiting = 0;
  bool ietf_extended = false;         // unicast/multicast counted apart (CapabilityMask 0x200)
  bool flow_control_counted = false;  // PortFlowCtlCounters read: the octet sums include SLPs
  bool in_topology = true;            // false: the port vanished from discovery
  // IF-MIB interface columns (interface_status.h): notPresent once the port left discovery.
  OperStatus oper_status = OperStatus::kUnknown;
  // The share of the last interval between two PortXmitWait readings in which the port had
  // data to send and sent none: its ticks x the tick's period (ConverterOptions), at most 1.
  // NaN (absent) until the counter was read (0 after its first reading: no interval yet), and
  // while its narrow copy is latched (that interval's count is short of the truth).
  float xmit_wait_ratio = std::numeric_limits<float>::quiet_NaN();
  // The period of the port's PortXmitWait tick that the wait ratios use, in ns
  // (ConverterOptions::xmit_wait_tick; xmit_wait_tick_period()).
  float xmit_wait_tick_ns = static_cast<float>(schema::kDefaultXmitWaitTickNs);
  Clock::time_point last_change{};  // ifLastChange (epoch: unchanged since we started)
  uint32_t mtu = 0;                 // ifMtu, octets (0: not known)
  uint16_t phys_lid = 0;            // ifPhysAddress as the base LID (0: empty)
  float utilisation_in = 0, utilisation_out = 0;  // of the active link's data rate, 0..1
  Clock::time_point last_read{};                  // last successful reading (epoch: never)
  Clock::time_point discontinuity{};  // last foreign clear or source switch (epoch: none)
  uint64_t lossy_intervals = 0, foreign_clears = 0, own_clears = 0, source_switches = 0;
  // Milliseconds covered by the error counts since this run started, wrapping at 2^32 (49.7
  // days: take differences modulo 2^32 over shorter windows): the sum of the intervals
  // between two successful readings whose delta is exact (not the first reading, not lossy
  // past a latch, not a foreign clear or a change of copy). A bit error ratio divides the
  // errors of a window by its covered time x the link's bit rate: failed reads, and counts
  // lost to a latch or a clear, are not error-free time. covered_symbol_ms:
  // SymbolErrorCounter's source attribute; covered_fec_ms: the RS-FEC totals (uncorrectable
  // blocks and corrected symbols both exact).
  uint32_t covered_symbol_ms = 0, covered_fec_ms = 0;
  // The per-VL / per-lane counters of the attributes read, or null if none was read.
  std::shared_ptr<const ExtraCounters> extra;
  // Per-VL traffic from PortSamples (ibIfVLTrafficTable), or null: never sampled.
  std::shared_ptr<const PortVlTraffic> vl_traffic;

  bool has(schema::CounterId id) const { return present >> schema::index_of(id) & 1; }
  // xmit_wait_ratio's per-VL twin, from PortVLXmitWaitCounters (read at the details interval):
  // nothing before two readings, nor for an interval its 16-bit counter latched in.
  std::optional<double> vl_xmit_wait_ratio(size_t vl) const {
    const std::optional<float> rate = extra ? extra->vl_wait_rate(vl) : std::nullopt;
    if (!rate || std::isnan(*rate)) return std::nullopt;
    return std::min(1.0, static_cast<double>(*rate) * xmit_wait_tick_ns / 1e9);
  }
  uint64_t total(schema::CounterId id) const { return totals[schema::index_of(id)]; }
  // An IF-MIB value (if_mib.h), computed from the totals when read: every snapshot still read
  // would hold 72 bytes per port more for what a few additions give.
  uint64_t value(schema::DerivedId id) const { return if_mib_value(totals, ietf_extended, id); }
  // Whether every counter the IF-MIB value is made of has been read since the start: after a
  // restart a port's counters come back one attribute at a time (a lossy port's 64-bit copy a
  // sweep or more after its narrow one), and a sum without one would go down, a counter reset.
  bool value_ready(schema::DerivedId id) const {
    return (if_mib_components(ietf_extended, id) & awaiting) == 0;
  }
};

struct ConverterStats {
  uint64_t samples = 0, failed_samples = 0;
  uint64_t lossy_intervals = 0;  // a narrow counter was found latched
  uint64_t foreign_clears = 0;   // readings below the previous one we did not cause
  uint64_t source_switches = 0;  // narrow <-> 64-bit
  uint64_t own_clears = 0;       // counters our Sets cleared
  uint64_t own_clears_failed = 0;
  uint64_t clear_requests = 0, clear_requests_dropped = 0;
  uint64_t clear_window_lost_max = 0;  // upper bound of counts lost between read and clear
  double clear_window_seconds = 0;     // summed time between the read and the clear
  // Samples dropped because the port they name was first found in another subnet: a port key
  // seen in two subnets keeps the first subnet's readings only (collector/subnets.h).
  uint64_t other_subnet_samples = 0;
  // Ports whose totals restarted from a first reading without history: back after they were
  // forgotten, or taken up by a shard (a port another shard may have exported before).
  uint64_t restarted_ports = 0;
  // Samples with readings held back (converter.h): of a restored counter from the other copy
  // (narrow or 64-bit) than the one the last run read, or a narrow fallback's of a counter
  // read from its 64-bit copy. Its total continues only from its own copy.
  uint64_t readings_held = 0;

  // Breaks in a counter's history: out-of-band clears, source switches, restarted ports.
  uint64_t discontinuities() const { return foreign_clears + source_switches + restarted_ports; }
};

struct FabricSnapshot {
  // Sorted by key. Mapped storage: freed to the kernel with the snapshot (mapped_allocator.h).
  std::vector<PortSnapshot, MappedAllocator<PortSnapshot>> ports;
  std::shared_ptr<const collector::Topology> topology;
  // The P_Key tables read so far (collector/partitions.h); null before the first ones.
  std::shared_ptr<const collector::PartitionTables> partitions;
  // The subnet managers the last SMInfo round of each subnet found (collector/sma_info.h);
  // null before one.
  std::shared_ptr<const collector::SubnetManagers> subnet_managers;
  ConverterStats stats;
  Clock::time_point published{};
  // Its number in publishing order (1, 2, ...; 0: not numbered): a reader that takes only the
  // latest snapshot sees from the gaps how many it passed over.
  uint64_t sequence = 0;

  const PortSnapshot* find(collector::PortKey key) const;
  // Narrow counters latched at all ones right now, over every port.
  uint64_t saturated_counters() const;
};

// The newest snapshot, handed over under a mutex held only for a pointer copy (readers load
// once per scrape, SNMP request or alert pass). Not std::atomic<std::shared_ptr>: libstdc++
// 12 guards it with a lock bit in the control block's pointer that ThreadSanitizer cannot
// see, so every publish read as a data race, and the mutex costs nothing measurable here.
class SnapshotStore {
 public:
  void publish(std::shared_ptr<const FabricSnapshot> snapshot) {
    std::shared_ptr<const FabricSnapshot> previous;  // freed outside the lock
    {
      std::lock_guard lock(mutex_);
      previous = std::exchange(current_, std::move(snapshot));
    }
    published_.notify_all();
  }
  std::shared_ptr<const FabricSnapshot> load() const {
    std::lock_guard lock(mutex_);
    return current_;
  }
  // The latest snapshot once it is another than `seen` (the reader's last; it holds it, so its
  // address cannot be a new one's), waiting at most `timeout` for a publish; null if none came.
  // Readers that act on every snapshot wait here instead of polling.
  std::shared_ptr<const FabricSnapshot> wait_for_newer(
      const std::shared_ptr<const FabricSnapshot>& seen, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    const auto newer = [&] { return current_ != nullptr && current_ != seen; };
    if (!published_.wait_for(lock, timeout, newer)) return nullptr;
    return current_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable published_;
  std::shared_ptr<const FabricSnapshot> current_;
};

}  // namespace ibpulse::converters
