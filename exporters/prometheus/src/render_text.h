#pragma once
// What every part of the fabric renderer writes with: each port's label text, the buffer being
// written (handed over in chunks when streaming), the HELP/TYPE and sample lines of the text
// format, and the families kept in their own files (render_link.cc, render_vl.cc). Private to
// the exporter; renderer.cc puts the families in order.
//
// Thread safety: a PortLabels and an Output belong to one render() call, on one thread; the
// snapshot they read is immutable.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/prometheus/metric_name.h"
#include "ibpulse/exporters/prometheus/renderer.h"

namespace ibpulse::exporters::prometheus::render {

// Each port's label set, `node_guid="0x...",port="N"`, written once per scrape and copied into
// every line of that port.
class PortLabels {
 public:
  explicit PortLabels(const converters::FabricSnapshot& snapshot) {
    offsets_.reserve(snapshot.ports.size() + 1);
    text_.reserve(snapshot.ports.size() * 40);
    for (const converters::PortSnapshot& p : snapshot.ports) {
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
inline std::string fabric_metric(std::string_view suffix) {
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

inline void header(std::string& out, std::string_view name, std::string_view help,
                   std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ");
  out.append(name).append(" ").append(type).append("\n");
}

inline void append_integer(std::string& out, uint64_t v) {
  char buf[24];
  char* const end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  // (Pointer and length, not the iterator pair: once inlined with a constant value, g++ 12
  // warns falsely on that, -Wrestrict.)
  out.append(buf, static_cast<size_t>(end - buf));
}

// `name{labels[,extra]} value\n`.
inline void line(std::string& out, std::string_view name, std::string_view labels, uint64_t value,
                 std::string_view extra = {}) {
  out.append(name).append("{").append(labels).append(extra).append("} ");
  append_integer(out, value);
  out.push_back('\n');
}

inline void gauge_line(std::string& out, std::string_view name, std::string_view labels,
                       double value, std::string_view extra = {}) {
  out.append(name).append("{").append(labels).append(extra).append("} ");
  char buf[32];  // the shortest text that reads back as `value`, as fmt's "{}" writes it
  out.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
  out.push_back('\n');
}

// A gauge family with a line for each port `value` gives a number for.
template <typename ValueFn>
void render_gauge(const converters::FabricSnapshot& s, const PortLabels& labels, Output& o,
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

// The `link` group (render_link.cc): saturation, utilisation and read age, the PortInfo gauges
// and `infiniband_port_info`, in that order.
void render_link(const converters::FabricSnapshot& s, const PortLabels& labels, Output& o);

// The `partitions` group (render_partitions.cc): infiniband_port_partition_info.
void render_partitions(const converters::FabricSnapshot& s, const PortLabels& labels, Output& o);

// The `sampling` group (render_vl.cc): per-VL traffic from PortSamples and its coverage.
void render_vl_traffic(const converters::FabricSnapshot& s, const PortLabels& labels, Output& o);
// Part of the `vl` group (render_vl.cc): infiniband_port_vl_xmit_wait_ratio.
void render_vl_wait_ratios(const converters::FabricSnapshot& s, const PortLabels& labels,
                           Output& o);

}  // namespace ibpulse::exporters::prometheus::render
