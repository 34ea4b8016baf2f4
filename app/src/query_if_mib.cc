#include "query_if_mib.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/one_shot.h"

namespace ibpulse::cli {
namespace {

constexpr uint64_t kGauge32Max = std::numeric_limits<uint32_t>::max();

// The IBA names of the counters whose narrow copy was found at all ones: a value derived from
// them is a lower bound.
std::vector<std::string> latched(const converters::PortSnapshot& p) {
  std::vector<std::string> out;
  const auto table = schema::counter_table();
  for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
    if ((p.present & p.saturated) >> c & 1) out.emplace_back(table[c].field);
  }
  return out;
}

}  // namespace

std::optional<QueryIfMib> if_mib_of(std::span<const collector::RawSample> samples,
                                    collector::PortKey key,
                                    const std::optional<collector::LinkState>& link) {
  auto port = converters::one_shot_port(samples, key);
  if (!port) return std::nullopt;
  QueryIfMib out{std::move(*port), std::nullopt};
  if (link) {
    if (const uint64_t bits = converters::link_bits_per_second(*link); bits != 0)
      out.link_bits = bits;
  }
  return out;
}

nlohmann::json if_mib_json(const QueryIfMib& v) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < schema::kDerivedCount; ++i)
    out[std::string(schema::derived_table()[i].object)] =
        v.port.value(static_cast<schema::DerivedId>(i));
  if (v.link_bits) {
    out["ifSpeed"] = converters::if_speed(*v.link_bits);
    out["ifHighSpeed"] = converters::if_high_speed(*v.link_bits);
  }
  return out;
}

nlohmann::json if_mib_inputs_json(const QueryIfMib& v) {
  return {{"flow_control_counted", v.port.flow_control_counted},
          {"ietf_extended", v.port.ietf_extended},
          {"latched", latched(v.port)}};
}

void print_if_mib(const QueryIfMib& v) {
  fmt::print(
      "IF-MIB (draft-ietf-ipoib-ibif-mib-00 section 2.4, POH 4, SLP 8), from these readings:\n");
  for (size_t i = 0; i < schema::kDerivedCount; ++i) {
    const auto& d = schema::derived_table()[i];
    fmt::print("  {:<34} {:>20}  {}\n", d.object, v.port.value(static_cast<schema::DerivedId>(i)),
               d.help);
  }
  if (v.link_bits) {
    fmt::print("  {:<34} {:>20}  bits/s{}\n", "ifSpeed", converters::if_speed(*v.link_bits),
               *v.link_bits > kGauge32Max
                   ? fmt::format(" (the link carries {}: above Gauge32)", *v.link_bits)
                   : "");
    fmt::print("  {:<34} {:>20}  Mb/s\n", "ifHighSpeed", converters::if_high_speed(*v.link_bits));
  } else {
    fmt::print("  {:<34} {:>20}  (query by GUID to read the link)\n", "ifSpeed", "unknown");
  }
  if (!v.port.flow_control_counted)
    fmt::print("  (PortFlowCtlCounters not read: the octets' flow control terms are 0)\n");
  if (!v.port.ietf_extended)
    fmt::print("  (no IETF extended counters: every packet counted as unicast, as the draft)\n");
  if (const auto names = latched(v.port); !names.empty())
    fmt::print("  (latched, so the values using them are lower bounds: {})\n",
               fmt::join(names, ", "));
}

}  // namespace ibpulse::cli
