#include "ibpulse/exporters/prometheus/renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "render_text.h"

namespace ibpulse::exporters::prometheus {
namespace render {
namespace {

using converters::FabricSnapshot;
using converters::PortSnapshot;
using schema::kCoreCounterCount;

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
    // A name can span groups: the RS-FEC port totals (counters) follow the older layout's
    // per-lane counters of the same name (lanes).
    bool shown = false;
    for (size_t k = c; k < end; ++k)
      shown = shown || groups.has(table[k]);
    if (!shown) {
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
        const auto st = states->find(k - kCoreCounterCount);
        if (!st || st->source == converters::Source::kNone || !groups.has(table[k])) continue;
        // Per VL or per lane, with that label; PortExtendedSpeedsCounters' SyncHeaderError
        // and UnknownBlock counters and the RS-FEC totals are per port and have none.
        extra.clear();
        if (!table[k].label.empty()) {
          extra.push_back(',');
          extra.append(table[k].label);
          extra.append("=\"");
          append_integer(extra, table[k].label_value);
          extra.push_back('"');
        }
        line(out, name, labels.of(i), st->total, extra);
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
      const auto id = static_cast<schema::DerivedId>(index);
      if (!p.value_ready(id)) continue;
      line(out, name, labels.of(i), p.value(id));
      o.done();
    }
  }
}

void render_all(const FabricSnapshot& snapshot, Output& o, const MetricGroups& groups) {
  const PortLabels labels(snapshot);
  render_core_counters(snapshot, labels, o, groups);
  render_extra_counters(snapshot, labels, o, groups);
  if (groups.vl) render_vl_wait_ratios(snapshot, labels, o);
  if (groups.if_mib) render_derived(snapshot, labels, o);
  if (groups.sampling) render_vl_traffic(snapshot, labels, o);
  if (groups.link) render_link(snapshot, labels, o);
  if (groups.partitions) render_partitions(snapshot, labels, o);
}

}  // namespace
}  // namespace render

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
      return counter.label.empty() ? counters : lanes;  // per port: SyncHeader, RS-FEC totals
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

void FabricRenderer::render(const converters::FabricSnapshot& snapshot, std::string& out) const {
  render::Output o{out};
  render::render_all(snapshot, o, groups_);
}

void FabricRenderer::render(const converters::FabricSnapshot& snapshot, std::string& scratch,
                            const Sink& sink, size_t chunk_bytes) const {
  scratch.clear();
  render::Output o{scratch, &sink, chunk_bytes};
  render::render_all(snapshot, o, groups_);
  if (!scratch.empty()) sink(scratch);
  scratch.clear();
}

}  // namespace ibpulse::exporters::prometheus
