#pragma once
// Counter names a rule may use, and the value each names on one port of a snapshot.
//
// Thread safety: pure functions.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/rule.h"

namespace ibpulse::exporters::alerts {

struct ResolvedCounter {
  CounterSource source;
  std::string name;  // the ibpulse name: what notifications and logs call it
};

// Accepts the ibpulse name (`symbol_error`, `xmit_data_bytes`, a per-VL/per-lane family such as
// `fec_uncorrectable_blocks`, summed over its members), the Prometheus metric name, the IBA
// field name (`SymbolErrorCounter`), the IF-MIB values (`if_in_octets` or `ifInOctets`) and the
// utilisation gauges (`utilisation`: the larger direction, `xmit_utilization`,
// `rcv_utilization`).
std::optional<ResolvedCounter> resolve_counter(std::string_view raw);

// True for the gauges: a rule compares their value, not a delta.
inline bool is_gauge(const CounterSource& s) {
  return s.kind == CounterSource::Kind::kUtilisation;
}

// The value on a port, or nothing when the port never had it read.
std::optional<double> gauge_value(const CounterSource& s, const converters::PortSnapshot& p);
std::optional<uint64_t> counter_value(const CounterSource& s, const converters::PortSnapshot& p);

// For a pass over `ports` at `i`: fetches ahead what the extra (per-VL, per-lane) counters of
// the ports a few rows on will need, the object first and its storage once that has come. The
// rows are contiguous and the hardware fetches them ahead; the extra counters are apart, and
// on 70,000 ports waiting for them was most of the alert thread's time.
[[gnu::always_inline]] inline void prefetch_extra(std::span<const converters::PortSnapshot> ports,
                                                  size_t i) {
  constexpr size_t kFar = 16;
  constexpr size_t kNear = 8;
  if (i + kFar < ports.size()) {
    if (const auto* e = ports[i + kFar].extra.get()) __builtin_prefetch(e);
  }
  if (i + kNear < ports.size()) {
    if (const auto* e = ports[i + kNear].extra.get()) __builtin_prefetch(e->storage());
  }
}

}  // namespace ibpulse::exporters::alerts
