#pragma once
// The converter: drains raw samples, keeps each port's counter state (accumulator.h) and
// publishes FabricSnapshots. With the `threshold` clear policy it asks the poller to clear a
// narrow counter near its latch that has no 64-bit copy (ClearRing), and takes the Set's
// response as the new baseline.
//
// Thread safety: one thread calls everything on a Converter; publish() hands out immutable
// snapshots other threads may read.

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ibpulse/collector/clear.h"
#include "ibpulse/collector/pma.h"
#include "ibpulse/converters/accumulator.h"
#include "ibpulse/converters/if_index.h"
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
};

class Converter {
 public:
  explicit Converter(ConverterOptions options, collector::ClearRing* clears = nullptr);

  // The ports to report (and their links, for utilisation). Ports with state that are not
  // in it are reported with in_topology = false.
  void set_topology(std::shared_ptr<const collector::Topology> topology);

  ApplyEvents apply(const collector::RawSample& sample);

  // Builds a snapshot of every port now.
  std::shared_ptr<const FabricSnapshot> snapshot(Clock::time_point now) const;

  const ConverterStats& stats() const { return stats_; }

  // Per-port state, exposed for persistence (state.h) and tests.
  struct PortState {
    std::array<CounterState, schema::kCoreCounterCount> core{};
    // Per-VL / per-lane counters, once read; shared with snapshots, copied before a write.
    std::shared_ptr<std::vector<CounterState>> extra;
    std::array<Clock::time_point, 16> last_read{};  // per attribute (id & 0xf)
    std::array<float, schema::kCoreCounterCount> rates{};
    std::array<Clock::time_point, 16> clear_asked{};  // per attribute: a clear in flight since
    uint64_t present = 0;
    bool ietf_extended = false, flow_control_counted = false;
    bool own_clear_since_extended = false;  // a lower 64-bit reading next is our clear
    Clock::time_point last_read_any{}, discontinuity{};
    uint64_t lossy_intervals = 0, foreign_clears = 0, own_clears = 0, source_switches = 0;
  };
  const PortState* state(collector::PortKey key) const;

  // Persistence (state_file.h): every port with state, in no particular order; and restoring
  // one before any sample of it (time points and rates are not restored: they restart).
  size_t port_count() const { return ports_.size(); }
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
  struct KeyHash {
    size_t operator()(collector::PortKey k) const noexcept {
      uint64_t h = k.node_guid * 0x9E3779B97F4A7C15ull ^ k.port;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };

  PortState& port(collector::PortKey key);
  void apply_field(PortState& p, const collector::RawSample& s, const schema::Field& field,
                   size_t counter, size_t index, Clock::duration dt, ApplyEvents& events);
  void note_clear_window(PortState& p, const collector::RawSample& s, Clock::duration dt);
  bool maybe_ask_clear(PortState& p, const collector::RawSample& s);
  void apply_vl_sample(const collector::RawSample& s);

  ConverterOptions options_;
  collector::ClearRing* clears_;
  std::shared_ptr<const collector::Topology> topology_;
  std::unordered_map<collector::PortKey, uint32_t, KeyHash> index_;
  std::vector<collector::PortKey> keys_;
  std::vector<PortState> ports_;
  IfIndexTable if_indexes_;
  VlTrafficMap vl_traffic_;
  ConverterStats stats_;
};

}  // namespace ibpulse::converters
