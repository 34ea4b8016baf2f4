// Prints docs/metrics.md from the counter schema, so the list operators read is the one the
// code exports. `ctest` checks the committed file against it; regenerate with
// `build/tools/metrics_doc > docs/metrics.md`.
#include <fmt/format.h>

#include <string_view>

#include "ibpulse/schema/counters.h"

namespace {

using namespace ibpulse::schema;

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::kEvents:
      return "events";
    case Unit::kBytes:
      return "bytes";
    case Unit::kPackets:
      return "packets";
    case Unit::kTicks:
      return "ticks";
    case Unit::kBlocks:
      return "FEC blocks";
  }
  return "?";
}

std::string mib_name(MibColumn mib) {
  switch (mib.table) {
    case MibTable::kNone:
      return "";
    case MibTable::kIfTable:
      return fmt::format("ifEntry.{}", mib.column);
    case MibTable::kIfXTable:
      return fmt::format("ifXEntry.{}", mib.column);
    case MibTable::kIbIfPortStat:
      return fmt::format("ibIfPortStatEntry.{}", mib.column);
  }
  return "";
}

std::string describe(const Field& field) {
  return fmt::format("{}.{} ({} bit)", find_attribute(field.attribute)->name, field.name,
                     field.width);
}

std::string source(size_t index) {
  const std::string narrow = describe(narrow_source(index));
  const auto wide = wide_source(index);
  return wide ? fmt::format("{}, else {}", describe(*wide), narrow) : narrow;
}

}  // namespace

int main() {
  fmt::print(
      "# Metrics\n\n"
      "Generated from the counter schema (`schema/src/counters.cc`) by `build/tools/metrics_doc`;"
      "\na test fails when this file and the schema disagree.\n\n"
      "Every counter is a 64-bit monotonic total per port (labels `node_guid`, `port`), named\n"
      "`infiniband_port_<name>_total`. Where PortCountersExtended carries a 64-bit copy and the\n"
      "port advertises it, that copy is read; otherwise the narrow PortCounters field, whose\n"
      "latch and clears the converters handle.\n\n"
      "## Counters\n\n"
      "| metric | label | unit | source | SNMP column | help |\n"
      "| --- | --- | --- | --- | --- | --- |\n");
  const auto table = counter_table();
  for (size_t i = 0; i < table.size(); ++i) {
    const Counter& c = table[i];
    if (!c.label.empty() && c.label_value != 0) continue;  // one row per family
    const std::string label =
        c.label.empty() ? "" : fmt::format("`{}` (0-{})", c.label, c.label == "vl" ? 15 : 11);
    std::string src = source(i);
    if (!c.label.empty()) src = fmt::format("{}.{}N", find_attribute(c.attribute)->name,
                                            c.field.substr(0, c.field.size() - 1));
    fmt::print("| `{}` | {} | {} | {} | {} | {} |\n", metric_name(c), label, unit_name(c.unit),
               src, mib_name(c.mib), c.help);
  }
  fmt::print(
      "\n## IF-MIB values\n\n"
      "Computed by the converters from the counters above (IB-IF-MIB draft section 2.4, POH = 4,\n"
      "SLP = 8); ifOutErrors, ifInUnknownProtos and the broadcast counters are always 0.\n\n"
      "| metric | SNMP column | definition |\n| --- | --- | --- |\n");
  for (const Derived& d : derived_table()) {
    fmt::print("| `infiniband_port_{}_total` | {} | {} |\n", d.name, mib_name(d.mib), d.help);
  }
  return 0;
}
