#include "ibpulse/exporters/prometheus/renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include "ibpulse/converters/if_mib.h"
#include "ibpulse/converters/interface_status.h"
#include "ibpulse/exporters/prometheus/metric_name.h"

namespace ibpulse::exporters::prometheus {
namespace {

using converters::FabricSnapshot;
using converters::PortSnapshot;
using schema::kCoreCounterCount;

// Each port's label set, `node_guid="0x...",port="N"`, written once per scrape and copied into
// every line of that port.
class PortLabels {
 public:
  explicit PortLabels(const FabricSnapshot& snapshot) {
    offsets_.reserve(snapshot.ports.size() + 1);
    text_.reserve(snapshot.ports.size() * 40);
    for (const PortSnapshot& p : snapshot.ports) {
      offsets_.push_back(static_cast<uint32_t>(text_.size()));
      // By hand, not fmt: this runs for every port of every scrape.
      static constexpr char kHex[] = "0123456789abcdef";
      text_.append("node_guid=\"0x");
      for (int shift = 60; shift >= 0; shift -= 4)
        text_.push_back(kHex[p.key.node_guid >> shift & 0xF]);
      text_.append("\",port=\"");
      char buf[4];
      text_.append(buf, std::to_chars(buf, buf + sizeof buf, p.key.port).ptr);
      text_.push_back('"');
    }
    offsets_.push_back(static_cast<uint32_t>(text_.size()));
  }
  std::string_view of(size_t i) const {
    return std::string_view(text_).substr(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }

 private:
  std::string text_;
  std::vector<uint32_t> offsets_;
};

// kFabricPrefix + suffix. (Not operator+: g++ 12 warns falsely on it, -Wrestrict.)
std::string fabric_metric(std::string_view suffix) {
  std::string name(kFabricPrefix);
  name.append(suffix);
  return name;
}

// The buffer being written and, when streaming, where full chunks go.
struct Output {
  std::string& text;
  const FabricRenderer::Sink* sink = nullptr;
  size_t chunk_bytes = 0;
  // After each line: hands a full chunk over, so a scrape never holds the whole text.
  void done() {
    if (sink != nullptr && text.size() >= chunk_bytes) {
      (*sink)(text);
      text.clear();
    }
  }
};

void header(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ");
  out.append(name).append(" ").append(type).append("\n");
}

void append_integer(std::string& out, uint64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

// `name{labels[,extra]} value\n`.
void line(std::string& out, std::string_view name, std::string_view labels, uint64_t value,
          std::string_view extra = {}) {
  out.append(name).append("{").append(labels).append(extra).append("} ");
  append_integer(out, value);
  out.push_back('\n');
}

void gauge_line(std::string& out, std::string_view name, std::string_view labels, double value,
                std::string_view extra = {}) {
  out.append(name).append("{").append(labels).append(extra).append("} ");
  char buf[32];  // the shortest text that reads back as `value`, as fmt's "{}" writes it
  out.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
  out.push_back('\n');
}

void render_core_counters(const FabricSnapshot& s, const PortLabels& labels, Output& o,
                          const MetricGroups& groups) {
  std::string& out = o.text;
  const auto table = schema::counter_table();
  for (size_t c = 0; c < kCoreCounterCount; ++c) {
    if (!groups.has(table[c])) continue;
    const std::string name = schema::metric_name(table[c]);
    header(out, name, table[c].help, "counter");
    o.done();
    for (size_t i = 0; i < s.ports.size(); ++i) {
      if ((s.ports[i].present >> c & 1) != 0) line(out, name, labels.of(i), s.ports[i].totals[c]);
      o.done();
    }
  }
}

// Per-VL and per-lane counters: one family per name, the VL or lane as a label.
void render_extra_counters(const FabricSnapshot& s, const PortLabels& labels, Output& o,
                           const MetricGroups& groups) {
  std::string& out = o.text;
  const auto table = schema::counter_table();
  std::string extra;
  for (size_t c = kCoreCounterCount; c < table.size();) {
    size_t end = c;
    while (end < table.size() && table[end].name == table[c].name)
      ++end;
    if (!groups.has(table[c])) {
      c = end;
      continue;
    }
    const std::string name = schema::metric_name(table[c]);
    header(out, name, table[c].help, "counter");
    o.done();
    for (size_t i = 0; i < s.ports.size(); ++i) {
      const auto& states = s.ports[i].extra;
      if (!states) continue;
      for (size_t k = c; k < end; ++k) {
        const auto& st = (*states)[k - kCoreCounterCount];
        if (st.source == converters::Source::kNone) continue;
        extra.clear();
        extra.push_back(',');
        extra.append(table[k].label);
        extra.append("=\"");
        append_integer(extra, table[k].label_value);
        extra.push_back('"');
        line(out, name, labels.of(i), st.total, extra);
        o.done();
      }
    }
    c = end;
  }
}

// The IF-MIB values, for ports whose data counters were read.
void render_derived(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  std::string& out = o.text;
  for (const auto& d : schema::derived_table()) {
    const std::string name = fmt::format("{}{}_total", kFabricPrefix, d.name);
    header(out, name, d.help, "counter");
    o.done();
    const auto index = static_cast<size_t>(&d - schema::derived_table().data());
    for (size_t i = 0; i < s.ports.size(); ++i) {
      const PortSnapshot& p = s.ports[i];
      if (!p.has(schema::CounterId::kXmitData) && !p.has(schema::CounterId::kRcvData)) continue;
      line(out, name, labels.of(i), p.derived[index]);
      o.done();
    }
  }
}

void render_saturation(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  std::string& out = o.text;
  // Not `counter_saturated` (issue 5's example): promtool's lint rejects a name that contains
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

// A gauge family with a line for each port `value` gives a number for.
template <typename ValueFn>
void render_gauge(const FabricSnapshot& s, const PortLabels& labels, Output& o,
                  std::string_view suffix, std::string_view help, ValueFn value) {
  const std::string name = fabric_metric(suffix);
  header(o.text, name, help, "gauge");
  o.done();
  for (size_t i = 0; i < s.ports.size(); ++i) {
    if (const std::optional<double> v = value(s.ports[i]))
      gauge_line(o.text, name, labels.of(i), *v);
    o.done();
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

// Per-VL traffic from PortSamples (ibIfVLTrafficTable's source): totals of the sampled time
// only, with the fraction of time the samples covered.
void render_vl_traffic(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  std::string& out = o.text;
  struct Family {
    std::string name;
    std::string_view help;
    converters::VlColumn column;
  };
  const Family families[] = {
      {fabric_metric("xmit_data_vl_bytes_total"),
       "Data octets transmitted on the VL during PortSamples samples (sampled time only)",
       converters::VlColumn::kXmitData},
      {fabric_metric("rcv_data_vl_bytes_total"),
       "Data octets received on the VL during PortSamples samples (sampled time only)",
       converters::VlColumn::kRcvData},
      {fabric_metric("xmit_pkt_vl_packets_total"),
       "Packets transmitted on the VL during PortSamples samples (sampled time only)",
       converters::VlColumn::kXmitPackets},
      {fabric_metric("rcv_pkt_vl_packets_total"),
       "Packets received on the VL during PortSamples samples (sampled time only)",
       converters::VlColumn::kRcvPackets},
  };
  std::string extra;
  for (const Family& f : families) {
    header(out, f.name, f.help, "counter");
    o.done();
    for (size_t i = 0; i < s.ports.size(); ++i) {
      const auto& t = s.ports[i].vl_traffic;
      if (!t) continue;
      for (size_t vl = 0; vl < converters::kVirtualLanes; ++vl) {
        if (!t->has(vl, f.column)) continue;
        const uint64_t value = t->vl[vl][f.column];
        extra.clear();
        extra.append(",vl=\"");
        append_integer(extra, vl);
        extra.push_back('"');
        line(out, f.name, labels.of(i), value, extra);
        o.done();
      }
    }
  }
  render_gauge(s, labels, o, "vl_sample_coverage_ratio",
               "Fraction of the time the port's PortSamples samples covered, 0..1",
               [](const PortSnapshot& p) {
                 return p.vl_traffic ? std::optional<double>(p.vl_traffic->coverage())
                                     : std::nullopt;
               });
}

void render_all(const FabricSnapshot& snapshot, Output& o, const MetricGroups& groups) {
  const PortLabels labels(snapshot);
  render_core_counters(snapshot, labels, o, groups);
  render_extra_counters(snapshot, labels, o, groups);
  if (groups.if_mib) render_derived(snapshot, labels, o);
  if (groups.sampling) render_vl_traffic(snapshot, labels, o);
  if (!groups.link) return;
  render_saturation(snapshot, labels, o);
  render_port_gauges(snapshot, labels, o);
  render_link_gauges(snapshot, labels, o);
  render_port_info(snapshot, labels, o);
}

}  // namespace

bool MetricGroups::has(const schema::Counter& counter) const {
  using schema::Attribute;
  switch (counter.attribute) {
    case Attribute::kPortCounters:
    case Attribute::kPortCountersExtended:
      return counters;
    case Attribute::kPortRcvErrorDetails:
    case Attribute::kPortXmitDiscardDetails:
      return error_details;
    case Attribute::kPortFlowCtlCounters:
    case Attribute::kPortOpRcvCounters:
      return flow_control;
    case Attribute::kPortExtendedSpeedsCounters:
      return counter.label.empty() ? counters : lanes;  // SyncHeader/UnknownBlock: per port
    default:
      return vl;  // the per-VL attributes
  }
}

namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0 when it is not one.
size_t utf8_sequence(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  if (b(0) < 0x80) return 1;
  if (b(0) >= 0xC2 && b(0) <= 0xDF) return continuation(1) ? 2 : 0;
  if (b(0) >= 0xE0 && b(0) <= 0xEF) return continuation(1) && continuation(2) ? 3 : 0;
  if (b(0) >= 0xF0 && b(0) <= 0xF4) {
    return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

void append_escaped_label_value(std::string_view s, std::string& out) {
  // NodeDescription is 64 bytes of whatever the device was given: the text format wants UTF-8
  // and no control characters, or the whole scrape fails to parse.
  const bool plain = std::all_of(
      s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F && c != '\\' && c != '"'; });
  if (plain) {  // the usual description: nothing to escape or replace
    out.append(s);
    return;
  }
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const size_t n = utf8_sequence(s.substr(i));
    if (n == 0) {
      out.append("\xEF\xBF\xBD");  // U+FFFD for a byte that is not UTF-8
      ++i;
      continue;
    }
    if (c == '\\') {
      out.append("\\\\");
    } else if (c == '"') {
      out.append("\\\"");
    } else if (c == '\n') {
      out.append("\\n");
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      out.push_back(' ');
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
}

void FabricRenderer::render(const FabricSnapshot& snapshot, std::string& out) const {
  Output o{out};
  render_all(snapshot, o, groups_);
}

void FabricRenderer::render(const FabricSnapshot& snapshot, std::string& scratch, const Sink& sink,
                            size_t chunk_bytes) const {
  scratch.clear();
  Output o{scratch, &sink, chunk_bytes};
  render_all(snapshot, o, groups_);
  if (!scratch.empty()) sink(scratch);
  scratch.clear();
}

}  // namespace ibpulse::exporters::prometheus
