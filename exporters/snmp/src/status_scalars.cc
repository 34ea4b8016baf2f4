#include "ibpulse/exporters/snmp/status_scalars.h"

#include <algorithm>
#include <array>
#include <limits>

namespace ibpulse::exporters::snmp {
namespace {

constexpr uint32_t kScalars = 14;

// Gauge32 saturates rather than wraps.
uint64_t gauge(uint64_t v) {
  return std::min<uint64_t>(v, std::numeric_limits<uint32_t>::max());
}

void value(const CollectorStatus& s, uint32_t n, VarBind& out) {
  const std::array<uint64_t, kScalars + 1> values = {0,
                                                     s.nodes,
                                                     s.ports,
                                                     s.discoveries,
                                                     s.discovery_failures,
                                                     s.sweeps,
                                                     s.last_sweep_ms,
                                                     s.last_sweep_lag_ms,
                                                     s.stale_ports,
                                                     s.mads_sent,
                                                     s.mad_timeouts,
                                                     s.mad_failures,
                                                     s.saturated_counters,
                                                     s.discontinuities,
                                                     s.snapshot_age_ms};
  // IBPULSE-MIB: Counter64 for the totals, Gauge32 for the levels.
  constexpr std::array<bool, kScalars + 1> total = {false, false, false, true,  true,
                                                    true,  false, false, false, true,
                                                    true,  true,  false, true,  false};
  out.type = total[n] ? VarType::kCounter64 : VarType::kGauge32;
  out.number = total[n] ? values[n] : gauge(values[n]);
}

}  // namespace

const Oid& collector_status_oid() {
  static const Oid oid = [] {
    Oid o = kIbpulseRoot;
    o.insert(o.end(), {1, 1});
    return o;
  }();
  return oid;
}

bool status_next(const CollectorStatus& status, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out) {
  const Oid& base = collector_status_oid();
  uint32_t first = 1;  // the first scalar whose instance (base.n.0) comes after `oid`
  const bool within =
      oid.size() >= base.size() && std::equal(base.begin(), base.end(), oid.begin());
  if (within && oid.size() > base.size()) {
    const uint32_t n = oid[base.size()];
    const bool at_instance = oid.size() == base.size() + 2 && oid[base.size() + 1] == 0;
    const bool before_instance = oid.size() == base.size() + 1;  // base.n < base.n.0
    first = (inclusive && at_instance) || before_instance ? n : n + 1;
  } else if (!within &&
             std::lexicographical_compare(base.begin(), base.end(), oid.begin(), oid.end())) {
    return false;  // past the whole group
  }
  if (first == 0) first = 1;
  if (first > kScalars) return false;
  out.name = base;
  out.name.push_back(first);
  out.name.push_back(0);
  value(status, first, out);
  return true;
}

}  // namespace ibpulse::exporters::snmp
