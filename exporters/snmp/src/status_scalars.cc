#include "ibpulse/exporters/snmp/status_scalars.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <vector>

namespace ibpulse::exporters::snmp {
namespace {

// Gauge32 saturates rather than wraps.
uint64_t gauge(uint64_t v) {
  return std::min<uint64_t>(v, std::numeric_limits<uint32_t>::max());
}

// The statistic each scalar serves, by scalar number (index 0 unused).
const std::vector<const converters::PipelineStat*>& scalar_stats() {
  static const std::vector<const converters::PipelineStat*> stats = [] {
    std::vector<const converters::PipelineStat*> by_number(converters::pipeline_snmp_scalars() + 1);
    for (const converters::PipelineStat& stat : converters::pipeline_stats())
      if (stat.snmp_scalar != 0) by_number[stat.snmp_scalar] = &stat;
    return by_number;
  }();
  return stats;
}

// IBPULSE-MIB: Counter64 for the totals, Gauge32 for the levels.
void value(const CollectorStatus& s, uint32_t n, VarBind& out) {
  const converters::PipelineStat& stat = *scalar_stats().at(n);
  const uint64_t v = converters::whole_value(stat, s);
  const bool total = stat.kind == converters::StatKind::kTotal;
  out.type = total ? VarType::kCounter64 : VarType::kGauge32;
  out.number = total ? v : gauge(v);
}

// GETNEXT over the scalars base.1.0 to base.count.0; `value` fills scalar n.
template <typename ValueFn>
bool scalar_next(const Oid& base, uint32_t count, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out, ValueFn value) {
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
  if (first > count) return false;
  out.name = base;
  out.name.push_back(first);
  out.name.push_back(0);
  value(first, out);
  return true;
}

Oid below_root(std::initializer_list<uint32_t> arcs) {
  Oid o = kIbpulseRoot;
  o.insert(o.end(), arcs);
  return o;
}

}  // namespace

const Oid& collector_status_oid() {
  static const Oid oid = below_root({1, 1});
  return oid;
}

const Oid& alert_scalars_oid() {
  static const Oid oid = below_root({1, 2});
  return oid;
}

bool status_next(const CollectorStatus& status, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out) {
  return scalar_next(collector_status_oid(), converters::pipeline_snmp_scalars(), oid, inclusive,
                     out, [&](uint32_t n, VarBind& vb) { value(status, n, vb); });
}

bool alerts_next(const AlertScalars& alerts, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out) {
  return scalar_next(alert_scalars_oid(), 4, oid, inclusive, out, [&](uint32_t n, VarBind& vb) {
    const std::array<uint64_t, 5> values = {0, alerts.active, alerts.sent, alerts.dropped,
                                            alerts.suppressed};
    vb.type = n == 1 ? VarType::kGauge32 : VarType::kCounter64;
    vb.number = n == 1 ? gauge(values[n]) : values[n];
  });
}

}  // namespace ibpulse::exporters::snmp
