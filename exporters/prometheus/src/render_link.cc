// The `link` group of the fabric renderer: saturation, utilisation, transmit wait and read age, the
// gauges from discovery and PortInfo, and `infiniband_port_info`.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "ibpulse/collector/link_capability.h"
#include "ibpulse/converters/if_mib.h"
#include "ibpulse/converters/interface_status.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "render_text.h"

namespace ibpulse::exporters::prometheus::render {
namespace {

using converters::FabricSnapshot;
using converters::PortSnapshot;

void render_saturation(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  std::string& out = o.text;
  // Not `counter_saturated`: promtool's lint rejects a name that contains
  // a metric type.
  const std::string name = fabric_metric("saturated");
  header(out, name,
         "1 while the narrow hardware copy of a counter is latched at all ones (counts beyond it "
         "are lost until it is cleared); absent otherwise",
         "gauge");
  o.done();
  const auto table = schema::counter_table();
  std::string extra;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    for (uint64_t bits = s.ports[i].saturated; bits != 0; bits &= bits - 1) {
      const auto c = static_cast<size_t>(__builtin_ctzll(bits));
      extra.clear();
      extra.append(",counter=\"");
      extra.append(table[c].name);
      extra.push_back('"');
      line(out, name, labels.of(i), 1, extra);
      o.done();
    }
  }
}

void render_port_gauges(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  using R = std::optional<double>;
  render_gauge(s, labels, o, "xmit_utilization_ratio",
               "Transmitted data rate over the link's data rate, 0..1", [](const PortSnapshot& p) {
                 return p.has(schema::CounterId::kXmitData) ? R(p.utilisation_out) : R();
               });
  render_gauge(s, labels, o, "rcv_utilization_ratio",
               "Received data rate over the link's data rate, 0..1", [](const PortSnapshot& p) {
                 return p.has(schema::CounterId::kRcvData) ? R(p.utilisation_in) : R();
               });
  render_gauge(s, labels, o, "xmit_wait_ratio",
               "Share of the last interval in which the port had data to send and sent none: "
               "PortXmitWait ticks x the tick's period, 0..1; absent while the counter is "
               "latched",
               [](const PortSnapshot& p) {
                 return std::isnan(p.xmit_wait_ratio) ? R() : R(p.xmit_wait_ratio);
               });
  render_gauge(s, labels, o, "xmit_wait_tick_seconds",
               "Period of a PortXmitWait tick the wait ratios use: congestion.xmit-wait-tick, or "
               "the node's PortSamplesControl Tick at the link's speed",
               [](const PortSnapshot& p) {
                 return p.has(schema::CounterId::kXmitWait) ? R(p.xmit_wait_tick_ns / 1e9) : R();
               });
  render_gauge(s, labels, o, "last_read_age_seconds",
               "Seconds since the port's counters were last read successfully",
               [&s](const PortSnapshot& p) {
                 if (p.last_read == converters::Clock::time_point{}) return R();
                 return R(std::chrono::duration<double>(s.published - p.last_read).count());
               });
}

// Calls f(port, i) for each topology port that has snapshot row i: both are sorted by key.
template <typename F>
void for_each_topology_row(const FabricSnapshot& s, F&& f) {
  size_t i = 0;
  for (const collector::Port& port : s.topology->ports) {
    while (i < s.ports.size() && s.ports[i].key < port.key)
      ++i;
    if (i < s.ports.size() && s.ports[i].key == port.key) f(port, i);
  }
}

// LinkWidthActive and LinkSpeedActive describe a link that is up (Init, Armed or Active); a Down
// port still reports values, which no operator should read as its width.
bool link_up(const collector::LinkState& link) {
  return link.state >= 2;
}

// Gauges from discovery and PortInfo: one per topology port (width and rate: while it is up).
void render_link_gauges(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  std::string& out = o.text;
  if (!s.topology) return;
  struct Gauge {
    std::string name;
    std::string_view help;
    uint64_t (*value)(const collector::Port&);
    bool only_when_up = false;
  };
  const std::vector<Gauge> gauges = {
      {fabric_metric("state"), "PortInfo PortState: 1 Down, 2 Init, 3 Armed, 4 Active",
       [](const collector::Port& p) -> uint64_t { return p.link.state; }},
      {fabric_metric("phys_state"),
       "PortInfo PortPhysicalState: 1 Sleep, 2 Polling, 3 Disabled, 4 Training, 5 LinkUp, 6 "
       "LinkErrorRecovery, 7 PhyTest",
       [](const collector::Port& p) -> uint64_t { return p.link.phys_state; }},
      {fabric_metric("link_width_lanes"), "Active link width in lanes",
       [](const collector::Port& p) -> uint64_t {
         return converters::link_lanes(p.link.width_active);
       },
       true},
      {fabric_metric("link_rate_bytes_per_second"),
       "Data rate of the active link: width x lane data rate, in bytes per second",
       [](const collector::Port& p) -> uint64_t {
         return converters::link_bits_per_second(p.link) / 8;
       },
       true},
      {fabric_metric("mtu_bytes"), "NeighborMTU in bytes",
       [](const collector::Port& p) -> uint64_t { return converters::mtu_octets(p.link.mtu); }},
      {fabric_metric("lid"), "LID that reaches the port's PMA",
       [](const collector::Port& p) -> uint64_t { return p.lid; }},
  };
  for (const Gauge& g : gauges) {
    header(out, g.name, g.help, "gauge");
    o.done();
    for_each_topology_row(s, [&](const collector::Port& port, size_t i) {
      if (!g.only_when_up || link_up(port.link)) line(out, g.name, labels.of(i), g.value(port));
      o.done();
    });
  }
}

// 1 while an Active link runs below the width or speed both ends support and enable (4X at 1X,
// EDR at FDR); 0 for Active links at full capability; absent without an Active link and a peer.
void render_link_degraded(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  if (!s.topology) return;
  const std::string name = fabric_metric("link_degraded");
  header(o.text, name,
         "1 while the Active link trained below the width or speed both ends support and enable",
         "gauge");
  o.done();
  for_each_topology_row(s, [&](const collector::Port& port, size_t i) {
    if (port.active() && port.remote) {
      line(o.text, name, labels.of(i),
           collector::link_capability(*s.topology, port).degraded() ? 1 : 0);
    }
    o.done();
  });
}

std::string_view width_text(const collector::LinkState& link) {
  return link_up(link) && link.width_active != 0 ? collector::width_name(link.width_active)
                                                 : std::string_view("");
}

std::string_view speed_text(const collector::LinkState& link) {
  return link_up(link) ? collector::speed_name(link) : std::string_view("");
}

// One `infiniband_port_info` per topology port: the descriptive labels counters leave out.
void render_port_info(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  std::string& out = o.text;
  if (!s.topology) return;
  const collector::Topology& t = *s.topology;
  const std::string name = fabric_metric("info");
  header(out, name,
         "Descriptive labels of a port (always 1): join with on(node_guid, port) group_left",
         "gauge");
  o.done();
  std::string extra;
  for_each_topology_row(s, [&](const collector::Port& port, size_t i) {
    const collector::Node* node = t.find_node(port.key.node_guid);
    extra.clear();
    extra.append(",node_description=\"");
    if (node) append_escaped_label_value(node->name, extra);
    extra.append("\",node_type=\"");
    if (node) extra.append(collector::to_string(node->kind));
    fmt::format_to(std::back_inserter(extra), "\",system_image_guid=\"0x{:016x}\",lid=\"{}\"",
                   node ? node->system_image_guid : 0, port.lid);
    // The subnet: prefixes are not unique across rails, the local port reaching it is.
    fmt::format_to(std::back_inserter(extra), ",subnet_prefix=\"0x{:016x}\",local_port=\"",
                   t.subnet_prefix_of(port));
    if (const auto* subnet = t.subnet_of(port))
      append_escaped_label_value(subnet->local_port, extra);
    extra.push_back('"');
    extra.append(",link_width=\"");
    extra.append(width_text(port.link));
    extra.append("\",link_speed=\"");
    extra.append(speed_text(port.link));
    extra.push_back('"');
    if (port.remote) {
      const collector::Node* peer = t.find_node(port.remote->node_guid);
      fmt::format_to(std::back_inserter(extra),
                     ",remote_node_guid=\"0x{:016x}\",remote_port=\"{}\",remote_description=\"",
                     port.remote->node_guid, port.remote->port);
      if (peer) append_escaped_label_value(peer->name, extra);
      extra.push_back('"');
    }
    line(out, name, labels.of(i), 1, extra);
    o.done();
  });
}

}  // namespace

void render_link(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  render_saturation(s, labels, o);
  render_port_gauges(s, labels, o);
  render_link_gauges(s, labels, o);
  render_link_degraded(s, labels, o);
  render_port_info(s, labels, o);
}

}  // namespace ibpulse::exporters::prometheus::render
