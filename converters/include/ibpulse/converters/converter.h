#pragma once
// The converter: drains raw samples, keeps each port's counter state (accumulator.h) and
// publishes FabricSnapshots. With the `threshold` clear policy it asks the poller to clear a
// narrow counter near its latch that has no 64-bit copy (ClearRing), and takes the Set's
// response as the new baseline.
//
// Thread safety: one thread calls everything on a Converter; publish() hands out immutable
// snapshots other threads may read.

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ibpulse/collector/clear.h"
#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/shard.h"
#include "ibpulse/converters/accumulator.h"
#include "ibpulse/converters/core_counters.h"
#include "ibpulse/converters/extra_counters.h"
#include "ibpulse/converters/if_index.h"
#include "ibpulse/converters/interface_status.h"
#include "ibpulse/converters/mapped_allocator.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/converters/vl_traffic.h"

namespace ibpulse::converters {

enum class ClearPolicy : uint8_t { kNever, kThreshold };

// What one sample caused, for the caller to report.
struct ApplyEvents {
  bool own_clear = false;        // it was our Set's response: counters were cleared
  bool clear_failed = false;     // our Set went unanswered
  bool clear_requested = false;  // a clear was asked of the poller
  bool foreign_clear = false;    // a counter was cleared by someone else
};

struct ConverterOptions {
  ClearPolicy clear_policy = ClearPolicy::kNever;
  double clear_fraction = 0.75;                  // of a narrow counter's range, as opensm's PerfMgr
  std::chrono::milliseconds clear_retry{30000};  // a clear without an answer may be asked again
  // A port gone from discovery is reported notPresent this long, then forgotten.
  std::chrono::milliseconds not_present_grace{std::chrono::hours(1)};
  // The nodes this collector owns among shards: the ports of other nodes (from the state file
  // of an earlier shard layout) are forgotten at once, never reported notPresent.
  collector::ShardSpec shard{};
  // Clears wait in the converter until the caller released them (take_held_clears): the daemon
  // saves the state first, so that a crash right after a clear cannot lose what it erased.
  bool hold_clears = false;
  // A counter restored from the state file continues from a reading of the copy the last run
  // read (narrow or 64-bit) at most this long after the first reading of the other copy:
  // meanwhile it is held back (not exported, ConverterStats::readings_held). Taking the other
  // copy's reading as a new baseline would keep the saved total, up to a save interval older
  // than the last one exported: a counter going down, a reset to Prometheus. The poller reads
  // the narrow copy while a node's ClassPortInfo is unanswered (a lossy or initialising link)
  // and the 64-bit one again once a discovery reads it, so the daemon waits for two
  // discoveries. Past it, the other copy's reading is a source switch.
  std::chrono::milliseconds restored_source_wait{std::chrono::minutes(10)};
  // The period of a PortXmitWait tick, for every port (`congestion.xmit-wait-tick`): the wait
  // ratios are ticks waited per second x this. Unset: each port's own where its node answered
  // PortSamplesControl (xmit_wait_tick_period()), else schema::kDefaultXmitWaitTickNs.
  std::optional<std::chrono::nanoseconds> xmit_wait_tick{};
};

class Converter {
 public:
  explicit Converter(ConverterOptions options, collector::ClearRings* clears = nullptr);

  // The ports to report (and their links, for utilisation). Ports with state that are not
  // in it are reported with in_topology = false.
  // `now` dates status changes (ifLastChange) and departures (notPresent).
  void set_topology(std::shared_ptr<const collector::Topology> topology,
                    Clock::time_point now = Clock::now());
  // Forgets the ports gone from discovery for longer than the grace period (their counters and
  // rows; their ifIndex stays reserved). Called on an interval; set_topology does it too.
  void expire(Clock::time_point now);
  // The P_Key tables the next snapshots carry.
  void set_partitions(std::shared_ptr<const collector::PartitionTables> partitions) {
    partitions_ = std::move(partitions);
  }
  // The subnet managers the next snapshots carry.
  void set_subnet_managers(std::shared_ptr<const collector::SubnetManagers> subnet_managers) {
    subnet_managers_ = std::move(subnet_managers);
  }

  // With hold_clears (ConverterOptions), the clears asked since the last call: each may be sent
  // once a saved state holds the reading that asked for it (release_clears).
  std::vector<collector::ClearRequest> take_held_clears();
  // Hands clears to the pollers; one a full ring refuses is dropped, counted, and asked again
  // at the port's next reading.
  void release_clears(const std::vector<collector::ClearRequest>& clears);

  ApplyEvents apply(const collector::RawSample& sample);
  // apply() for each sample in turn (events[i] for samples[i]; events.size() >= samples.size()),
  // fetching the state of the samples further on into the cache while it converts one: samples
  // come in random port order, so each would otherwise wait for memory.
  void apply_batch(std::span<const collector::RawSample> samples, std::span<ApplyEvents> events);

  // Builds a snapshot of every port now.
  std::shared_ptr<const FabricSnapshot> snapshot(Clock::time_point now,
                                                 uint64_t sequence = 0) const;

  const ConverterStats& stats() const { return stats_; }

  // Per-port state, exposed for persistence (state.h) and tests.
  // Laid out by use, on cache lines of its own: what every sample writes, then the rates and
  // counters (a PortCountersExtended sample writes the first 22 of each), then what only
  // events and clears write.
  struct alignas(64) PortState {
    uint64_t present = 0;
    // Milliseconds whose errors the exported counts hold (PortSnapshot::covered_symbol_ms),
    // wrapping: 32 bits keep PortState at 960 bytes (1,024, a power of two, put every port
    // on the same cache sets and halved the converter's samples/s).
    uint32_t covered_symbol_ms = 0, covered_fec_ms = 0;
    bool ietf_extended = false, flow_control_counted = false;
    bool own_clear_since_extended = false;          // a lower 64-bit reading next is our clear
    bool restored = false;                          // from the state file: it has history
    std::array<Clock::time_point, 16> last_read{};  // per attribute (id & 0xf)
    std::array<float, schema::kCoreCounterCount> rates{};
    // The latest successful reading of any attribute (epoch: never read).
    Clock::time_point last_read_any() const {
      return *std::max_element(last_read.begin(), last_read.end());
    }
    CoreCounters core;
    Clock::time_point discontinuity{};
    uint64_t lossy_intervals = 0, foreign_clears = 0, own_clears = 0, source_switches = 0;
    // The first reading held back (ConverterOptions::restored_source_wait); epoch: none.
    Clock::time_point held_since{};

    // Per-VL / per-lane counters, once read; shared with snapshots, copied before a write.
    std::shared_ptr<ExtraCounters> extra;
  };
  const PortState* state(collector::PortKey key) const;

  // Persistence (state_file.h): every port with state, in no particular order; and restoring
  // one before any sample of it (time points and rates are not restored: they restart).
  size_t port_count() const;
  void for_each_port(const std::function<void(collector::PortKey, const PortState&)>& f) const;
  void restore_port(collector::PortKey key, PortState state);

  // Per-VL traffic from PortSamples results, per port that has sampled (shared with snapshots).
  using VlTrafficMap =
      std::unordered_map<collector::PortKey, std::shared_ptr<PortVlTraffic>, PortKeyHash>;
  const VlTrafficMap& vl_traffic() const { return vl_traffic_; }
  void restore_vl_traffic(collector::PortKey key, PortVlTraffic traffic);

  const IfIndexTable& if_indexes() const { return if_indexes_; }
  IfIndexTable& if_indexes() { return if_indexes_; }

 private:
  // PortKey -> slot, in two small tables that stay in the cache (a few hundred KB for 70,000
  // ports on 2,000 nodes), so a lookup never waits for memory: node GUID -> a block of slots
  // (open addressing), then the block indexed by port number.
  class PortIndex {
   public:
    static constexpr uint32_t kNone = ~uint32_t{0};
    uint32_t find(collector::PortKey key) const;
    void insert(collector::PortKey key, uint32_t slot);  // key must not be there yet
    const void* bucket(collector::PortKey key) const;    // where find() starts: to prefetch

   private:
    struct Node {
      uint64_t guid = 0;
      uint32_t first = 0;  // in slots_
      uint16_t ports = 0;  // block size: port numbers 0..ports-1; 0: an empty entry
    };
    size_t home(uint64_t guid) const;
    const Node* node(uint64_t guid) const;
    std::vector<Node> nodes_;  // size: a power of two, at most half full
    size_t node_count_ = 0;
    std::vector<uint32_t> slots_;  // kNone: no state for that port
  };

  // `slot`: the key's slot if known, else PortIndex::kNone (looked up, created if new).
  PortState& port(collector::PortKey key, uint32_t slot = PortIndex::kNone);
  uint32_t prefetch_state(const collector::RawSample& s) const;  // returns the slot or kNone
  // Whether a port read for the first time restarts its exported totals (see ConverterStats).
  bool starts_without_history(const PortState& p, collector::PortKey key);
  // Bit per field of `todo` not to apply: its counter waits for a reading of the copy it was
  // read from (a restored one, ConverterOptions::restored_source_wait; or a narrow fallback,
  // RawSample::narrow_fallback).
  uint64_t held_back(PortState& p, const collector::RawSample& s, uint64_t todo, Source source);
  ApplyEvents apply_at(const collector::RawSample& s, uint32_t slot);
  Outcome apply_field(PortState& p, const collector::RawSample& s, const schema::Field& field,
                      size_t counter, size_t index, ApplyEvents& events);
  Outcome apply_reading(PortState& p, CounterState& st, const Reading& r, bool cleared,
                        ApplyEvents& events);
  // The port's per-VL / per-lane block, its own copy if a snapshot still shares it.
  static ExtraCounters& writable_extra(PortState& p);
  // Stores a PortVLXmitWait counter's rate of the interval just read (NaN: none).
  static void set_vl_wait_rate(PortState& p, size_t counter, double rate);
  void note_clear_window(PortState& p, const collector::RawSample& s, Clock::duration dt);
  // The sample's exact deltas (bit per field) covered `dt` of its port's error counts.
  static void add_coverage(PortState& p, const collector::RawSample& s, uint64_t exact,
                           Clock::duration dt);
  bool maybe_ask_clear(const collector::RawSample& s);
  // clears_asked_'s key of a port's attribute.
  static std::pair<collector::PortKey, uint8_t> clear_key(collector::PortKey port,
                                                          schema::Attribute attribute) {
    return {port, static_cast<uint8_t>(static_cast<unsigned>(attribute) & 0xf)};
  }
  void apply_vl_sample(const collector::RawSample& s);
  void forget(const std::vector<collector::PortKey>& keys);
  void forget_foreign_ports();  // sharded: the ports of nodes another shard owns

  ConverterOptions options_;
  collector::ClearRings* clears_;
  std::shared_ptr<const collector::Topology> topology_;
  std::shared_ptr<const collector::PartitionTables> partitions_;
  std::shared_ptr<const collector::SubnetManagers> subnet_managers_;
  // Port states in topology order, so a snapshot reads them sequentially: slots
  // [0, topology_slots_) are the topology's ports (allocated by set_topology, `read_` once a
  // sample arrived), the ports after them were read but are not in the topology. A slot with
  // read_ == 0 is no port state (state() does not find it): whatever goes over every port
  // (persistence, counts) skips it.
  PortIndex index_;
  std::vector<collector::PortKey> slot_keys_;
  std::vector<PortState, MappedAllocator<PortState>> states_;  // on huge pages
  std::vector<uint8_t> read_;             // per slot: the port has state (state() finds it)
  std::vector<uint32_t> topology_order_;  // per topology port: its slot
  size_t topology_slots_ = 0;
  IfIndexTable if_indexes_;
  InterfaceTable interfaces_;
  // Ports forgotten after the grace period: if one comes back, its restart is a discontinuity.
  std::unordered_set<collector::PortKey, collector::PortKeyHash> forgotten_;
  // Several subnets only: each topology port's subnet, so that a sample read through another
  // subnet under the same key is dropped, not mixed in.
  std::unordered_map<collector::PortKey, uint8_t, collector::PortKeyHash> port_subnets_;
  VlTrafficMap vl_traffic_;
  // Node GUID -> the Tick its PMA's PortSamplesControl answered (the device's tick code).
  std::unordered_map<uint64_t, uint8_t> node_ticks_;
  // Per port and attribute (id & 0xf): when our clear was asked, while it is in flight. Only
  // the `threshold` clear policy asks, and few at a time: apart from the port states.
  std::map<std::pair<collector::PortKey, uint8_t>, Clock::time_point> clears_asked_;
  std::vector<collector::ClearRequest> held_clears_;  // hold_clears: asked, not yet released
  ConverterStats stats_;
};

}  // namespace ibpulse::converters
