// Prints docs/metrics.md from the counter schema and from what the Prometheus renderer and the
// self-metrics write, so the list operators read is the one the code exports. `ctest` checks the
// committed file against it; regenerate with `build/tools/metrics_doc > docs/metrics.md`.
#include <fmt/format.h>

#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/prometheus/self_metrics.h"
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
    case Unit::kSymbols:
      return "RS-FEC symbols";
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
    case MibTable::kIbpulsePort:
      return fmt::format("ibpulsePortEntry.{}", mib.column);
  }
  return "";
}

std::string describe(const Field& field) {
  return fmt::format("{}{}.{} ({} bit)", find_attribute(field.attribute)->name,
                     field.layout == Layout::kRsFec ? " (RS-FEC)" : "", field.name, field.width);
}

std::string source(size_t index) {
  const std::string narrow = describe(narrow_source(index));
  const auto wide = wide_source(index);
  return wide ? fmt::format("{}, else {}", describe(*wide), narrow) : narrow;
}

// Labels beyond `node_guid` and `port` (the exposition's headers do not say).
std::string_view extra_labels(std::string_view family) {
  if (family == "infiniband_port_saturated") return "`counter`";
  if (family == "infiniband_port_health") return "`state`";
  if (family == "infiniband_port_health_reason_info") return "`reason`";
  if (family == "infiniband_link_health") return "`remote_node_guid`, `remote_port`, `state`";
  if (family == "infiniband_port_congestion") return "`role` (`root`, `victim`)";
  if (family.find("_vl_") != std::string_view::npos && !family.ends_with("_ratio")) return "`vl`";
  if (family == "infiniband_port_info") {
    return "`node_description`, `node_type`, `system_image_guid`, `lid`, `subnet_prefix`, "
           "`local_port` (the local port reaching the port's subnet), `link_width`, "
           "`link_speed`, `remote_node_guid`, `remote_port`, `remote_description`";
  }
  if (family == "infiniband_port_partition_info")
    return "`pkey` (the partition, `0x0001`..`0x7fff`), `membership` (`full`, `limited`), "
           "`partition` (its name, where `fabric.partitions-file` names it)";
  if (family == "ibpulse_build_info") return "`version`";
  if (family == "ibpulse_sma_notifications_total") return "`trap` (the InfiniBand trap number)";
  if (family == "ibpulse_mads_failed_total") return "`reason`";
  if (family == "ibpulse_alerts_active") return "`rule`, `severity`, `node_guid`, `port`";
  if (family == "ibpulse_shard_info") return "`index`, `count`, `replicas`";
  if (family == "ibpulse_local_port_up") return "`ca`, `port`";
  if (family == "ibpulse_subnet_info") return "`subnet`, `subnet_prefix`";
  if (family == "ibpulse_subnet_ports") return "`subnet`";
  if (family == "ibpulse_remote_write_samples_total") return "`url`, `result`";
  if (family.starts_with("ibpulse_remote_write_")) return "`url`";
  return "";
}

// One table row per `# HELP` of `text` whose family is not in `skip`.
void print_families(const std::string& text, const std::set<std::string>& skip) {
  std::istringstream in(text);
  std::string help_line;
  std::string type_line;
  while (std::getline(in, help_line)) {
    if (!help_line.starts_with("# HELP ") || !std::getline(in, type_line)) continue;
    const std::string rest = help_line.substr(7);
    const std::string name = rest.substr(0, rest.find(' '));
    if (skip.contains(name)) continue;
    const std::string type = type_line.substr(type_line.rfind(' ') + 1);
    fmt::print("| `{}` | {} | {} | {} |\n", name, type, extra_labels(name),
               rest.substr(name.size() + 1));
  }
}

// The renderer's families that do not come from the schema tables above: rendered from an
// empty fabric with every group on, which writes every family's header.
void print_port_families() {
  std::set<std::string> from_schema;
  for (const Counter& c : counter_table())
    from_schema.insert(metric_name(c));
  for (const Derived& d : derived_table())
    from_schema.insert(fmt::format("infiniband_port_{}_total", d.name));
  ibpulse::exporters::prometheus::MetricGroups all;
  all.vl = all.lanes = true;
  ibpulse::converters::FabricSnapshot empty;
  empty.topology = std::make_shared<ibpulse::collector::Topology>();
  std::string text;
  ibpulse::exporters::prometheus::FabricRenderer(all).render(empty, text);
  const ibpulse::exporters::alerts::HealthSnapshot no_health;
  std::string scratch;
  ibpulse::exporters::prometheus::FabricRenderer(all).render_health(
      no_health, scratch, [&text](std::string_view chunk) { text.append(chunk); });
  print_families(text, from_schema);
}

void print_self_metrics() {
  ibpulse::exporters::prometheus::SelfMetrics self("x");
  // One raised alert, so that the per-alert family has a series to document.
  ibpulse::exporters::prometheus::DaemonStatus status;
  status.active_alerts.emplace_back();
  status.remote_write.emplace_back();                        // and one remote-write receiver
  status.sma_notifications = {{128, 0}};                     // and an SNMP agent
  status.poller.local_ports.push_back({"mlx5_0", 1, true});  // and several local ports
  status.poller.subnets = {{0, "mlx5_0:1", 0, 0}, {0, "mlx5_1:1", 0, 0}};  // and subnets
  self.update(status);
  std::string text;
  self.append(text);
  print_families(text, {});
}

}  // namespace

int main() {
  fmt::print(
      "# Metrics\n\n"
      "Generated by `build/tools/metrics_doc` from the counter schema (`schema/src/counters.cc`),\n"
      "the Prometheus renderer and the daemon's self-metrics; a test fails when this file and the\n"
      "code disagree.\n\n"
      "Every counter is a 64-bit monotonic total per port (labels `node_guid`, `port`), named\n"
      "`infiniband_port_<name>_total`. Where PortCountersExtended carries a 64-bit copy and the\n"
      "port advertises it, that copy is read; otherwise the narrow PortCounters field, whose\n"
      "latch and clears the converters handle.\n\n"
      "/metrics writes every counter as an exact 64-bit integer. Prometheus remote write\n"
      "(docs/remote-write.md) carries the same series as float64, exact below 2^53\n"
      "(9.007e15): above it a value is rounded to the nearest 2, 4, ... (a relative error\n"
      "below 1.2e-16). The counters that pass 2^53 are the byte counters (`*_data_bytes_total`\n"
      "and the IF-MIB `if_in_octets`/`if_out_octets`): at line rate 2^53 bytes take about 50 h\n"
      "(2.1 days) at NDR 4X (400 Gb/s, 5e10 bytes/s), 4.2 days at HDR 4X and 25 h at XDR 4X;\n"
      "since the hardware counters are never reset by ibpulse, a busy port may already be past\n"
      "it when the daemon starts. Packet counters would take over two years even at 100 Mpps.\n"
      "Scraping /metrics keeps every value exact.\n\n"
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
    if (!c.label.empty())
      src = fmt::format("{}.{}N", find_attribute(c.attribute)->name,
                        c.field.substr(0, c.field.size() - 1));
    fmt::print("| `{}` | {} | {} | {} | {} | {} |\n", metric_name(c), label, unit_name(c.unit), src,
               mib_name(c.mib), c.help);
  }
  fmt::print(
      "\n## IF-MIB values\n\n"
      "Computed by the converters from the counters above (IB-IF-MIB draft section 2.4, POH = 4,\n"
      "SLP = 8); ifOutErrors, ifInUnknownProtos and the broadcast counters are always 0.\n\n"
      "| metric | SNMP column | definition |\n| --- | --- | --- |\n");
  for (const Derived& d : derived_table()) {
    fmt::print("| `infiniband_port_{}_total` | {} | {} |\n", d.name, mib_name(d.mib), d.help);
  }
  fmt::print(
      "\n## Gauges, sampled traffic and info\n\n"
      "Per port (labels `node_guid`, `port`, and those listed). Link width and rate are absent\n"
      "while a port's link is down; a port never read has no utilisation or read age.\n\n"
      "| metric | type | more labels | help |\n| --- | --- | --- | --- |\n");
  print_port_families();
  fmt::print(
      "\n## The daemon's own metrics\n\n"
      "One series each (labels as listed), after the fabric's metrics in the same scrape.\n\n"
      "| metric | type | labels | help |\n| --- | --- | --- | --- |\n");
  print_self_metrics();
  return 0;
}
