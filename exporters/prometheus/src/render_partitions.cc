// The `partitions` group: `infiniband_port_partition_info`, one series per port and P_Key of
// its table (collector/partitions.h), so that partition enforcement drops
// (PortRcvConstraintErrors, PortXmitConstraintErrors) can be joined with the partitions of the
// port. A fabric whose hosts are each in a few partitions adds a few series per port; one with
// hundreds of partitions per port turns the group off (collect.partitions).
#include <fmt/format.h>

#include <iterator>
#include <string>

#include "render_text.h"

namespace ibpulse::exporters::prometheus::render {

void render_partitions(const converters::FabricSnapshot& s, const PortLabels& labels, Output& o) {
  const std::string name = fabric_metric("partition_info");
  header(o.text, name,
         "A P_Key of the port's table (always 1): pkey is the partition key (its low 15 bits), "
         "membership full or limited, partition its name where fabric.partitions-file names "
         "it; join with on(node_guid, port) group_left(pkey, partition)",
         "gauge");
  o.done();
  if (!s.partitions) return;
  static const collector::PartitionNames kNoNames;
  const collector::PartitionNames& names = s.topology ? s.topology->partition_names : kNoNames;
  const auto& tables = s.partitions->ports;
  auto table = tables.begin();
  std::string extra;
  for (size_t i = 0; i < s.ports.size(); ++i) {  // both sorted by port
    while (table != tables.end() && table->port < s.ports[i].key)
      ++table;
    if (table == tables.end()) break;
    if (table->port != s.ports[i].key) continue;
    for (const collector::PKeyEntry& e : table->entries) {
      extra.clear();
      fmt::format_to(std::back_inserter(extra), ",pkey=\"0x{:04x}\",membership=\"{}\"",
                     e.partition(), e.full_member() ? "full" : "limited");
      if (const auto named = names.find(e.partition()); named != names.end()) {
        extra.append(",partition=\"");
        append_escaped_label_value(named->second, extra);
        extra.push_back('"');
      }
      line(o.text, name, labels.of(i), 1, extra);
      o.done();
    }
  }
}

}  // namespace ibpulse::exporters::prometheus::render
