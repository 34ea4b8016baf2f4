#include "counter_source.h"

#include <algorithm>
#include <cctype>

namespace ibpulse::exporters::alerts {
namespace {

using Kind = CounterSource::Kind;

std::string_view strip(std::string_view name) {
  if (name.starts_with(schema::kMetricPrefix)) name.remove_prefix(schema::kMetricPrefix.size());
  if (name.ends_with("_total")) name.remove_suffix(6);
  return name;
}

std::optional<ResolvedCounter> resolve_schema_counter(std::string_view name) {
  const auto table = schema::counter_table();
  for (size_t i = 0; i < schema::kCoreCounterCount; ++i) {
    if (table[i].name == name || table[i].field == name) {
      return ResolvedCounter{{Kind::kCounter, i, {}}, std::string(table[i].name)};
    }
  }
  ResolvedCounter family{{Kind::kFamily, 0, {}}, std::string(name)};
  for (size_t i = schema::kCoreCounterCount; i < table.size(); ++i) {
    if (table[i].name == name) family.source.members.push_back(i);
  }
  if (!family.source.members.empty()) return family;
  const auto derived = schema::derived_table();
  for (size_t i = 0; i < derived.size(); ++i) {
    if (derived[i].name == name || derived[i].object == name) {
      return ResolvedCounter{{Kind::kDerived, i, {}}, std::string(derived[i].name)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ResolvedCounter> resolve_counter(std::string_view raw) {
  const std::string_view name = strip(raw);
  if (name == "utilisation" || name == "utilization") {
    return ResolvedCounter{{Kind::kUtilisation, 0, {}}, "utilisation"};
  }
  if (name == "xmit_utilization" || name == "xmit_utilization_ratio") {
    return ResolvedCounter{{Kind::kUtilisation, 1, {}}, "xmit_utilization"};
  }
  if (name == "rcv_utilization" || name == "rcv_utilization_ratio") {
    return ResolvedCounter{{Kind::kUtilisation, 2, {}}, "rcv_utilization"};
  }
  return resolve_schema_counter(name);
}

std::optional<double> gauge_value(const CounterSource& s, const converters::PortSnapshot& p) {
  const bool out = p.has(schema::CounterId::kXmitData);
  const bool in = p.has(schema::CounterId::kRcvData);
  switch (s.index) {
    case 1:
      return out ? std::optional<double>(p.utilisation_out) : std::nullopt;
    case 2:
      return in ? std::optional<double>(p.utilisation_in) : std::nullopt;
    default:
      if (!out && !in) return std::nullopt;
      return std::max(out ? p.utilisation_out : 0.0f, in ? p.utilisation_in : 0.0f);
  }
}

std::optional<uint64_t> counter_value(const CounterSource& s, const converters::PortSnapshot& p) {
  switch (s.kind) {
    case Kind::kCounter:
      if (!(p.present >> s.index & 1)) return std::nullopt;
      return p.totals[s.index];
    case Kind::kDerived:
      if (p.last_read == converters::Clock::time_point{}) return std::nullopt;
      if (!p.value_ready(static_cast<schema::DerivedId>(s.index))) return std::nullopt;
      return p.value(static_cast<schema::DerivedId>(s.index));
    case Kind::kFamily: {
      uint64_t sum = 0;
      bool any = false;
      for (size_t member : s.members) {
        if (member < schema::kCoreCounterCount) {  // a sum of core counters (health's)
          if (!(p.present >> member & 1)) continue;
          sum += p.totals[member];
          any = true;
          continue;
        }
        if (!p.extra) continue;
        const size_t i = member - schema::kCoreCounterCount;
        const auto st = p.extra->find(i);
        if (!st || st->source == converters::Source::kNone) continue;
        sum += st->total;
        any = true;
      }
      return any ? std::optional<uint64_t>(sum) : std::nullopt;
    }
    case Kind::kCovered:
      // Wrapping milliseconds: a history's increase across the wrap (every 49.7 days) reads
      // as none, one window without a BER.
      return s.index == 0 ? p.covered_symbol_ms : p.covered_fec_ms;
    case Kind::kUtilisation:
      break;
  }
  return std::nullopt;
}

}  // namespace ibpulse::exporters::alerts
