// The `sampling` group of the fabric renderer: per-VL traffic from PortSamples.
#include <optional>
#include <string>
#include <string_view>

#include "render_text.h"

namespace ibpulse::exporters::prometheus::render {

using converters::FabricSnapshot;
using converters::PortSnapshot;

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

// PortVLXmitWait's share of the interval per VL (xmit_wait_ratio's per-VL twin), for the VLs of
// ports whose PortVLXmitWaitCounters gave one.
void render_vl_wait_ratios(const FabricSnapshot& s, const PortLabels& labels, Output& o) {
  const std::string name = fabric_metric("vl_xmit_wait_ratio");
  header(o.text, name,
         "Share of the last interval between two PortVLXmitWaitCounters readings in which the "
         "VL had data to send and sent none, 0..1; absent while the 16-bit counter is latched",
         "gauge");
  o.done();
  std::string extra;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    const PortSnapshot& p = s.ports[i];
    if (!p.extra) continue;
    for (size_t vl = 0; vl < converters::kVirtualLanes; ++vl) {
      const std::optional<double> ratio = p.vl_xmit_wait_ratio(vl);
      if (!ratio) continue;
      extra.assign(",vl=\"");
      append_integer(extra, vl);
      extra.push_back('"');
      gauge_line(o.text, name, labels.of(i), *ratio, extra);
      o.done();
    }
  }
}

}  // namespace ibpulse::exporters::prometheus::render
