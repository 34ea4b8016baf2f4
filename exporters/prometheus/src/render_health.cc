// The `health` group: link health gauges. Their names are fixed (docs/health.md) so that
// dashboards and other tools can rely on them.
#include <cmath>
#include <string>

#include "ibpulse/exporters/prometheus/renderer.h"
#include "render_text.h"

namespace ibpulse::exporters::prometheus {
namespace {

using alerts::HealthSnapshot;
using alerts::HealthState;
using alerts::PortHealth;
using render::fabric_metric;
using render::gauge_line;
using render::header;
using render::Output;

constexpr std::array<HealthState, 3> kStates = {HealthState::kOk, HealthState::kDegraded,
                                                HealthState::kFailing};

void port_labels(collector::PortKey key, std::string_view guid_label, std::string_view port_label,
                 std::string& out) {
  out.append(guid_label).append("=\"").append(collector::guid_string(key.node_guid));
  out.append("\",").append(port_label).append("=\"").append(std::to_string(key.port));
  out.push_back('"');
}

template <typename ValueFn>
void port_gauge(const HealthSnapshot& h, Output& o, std::string_view suffix, std::string_view help,
                ValueFn value) {
  const std::string name = fabric_metric(suffix);
  header(o.text, name, help, "gauge");
  std::string labels;
  for (const PortHealth& p : h.ports) {
    const double v = value(p);
    if (std::isnan(v)) continue;
    labels.clear();
    port_labels(p.key, "node_guid", "port", labels);
    gauge_line(o.text, name, labels, v);
    o.done();
  }
}

void render_states(const HealthSnapshot& h, Output& o) {
  const std::string state = fabric_metric("health");
  header(o.text, state,
         "Link health of the port: 1 for its state (ok, degraded, failing), 0 for the others",
         "gauge");
  std::string labels;
  std::string extra;
  for (const PortHealth& p : h.ports) {
    labels.clear();
    port_labels(p.key, "node_guid", "port", labels);
    for (const HealthState s : kStates) {
      extra.assign(",state=\"").append(alerts::health_state_name(s)).append("\"");
      gauge_line(o.text, state, labels, s == p.state ? 1 : 0, extra);
    }
    o.done();
  }
  const std::string reason = fabric_metric("health_reason_info");
  header(o.text, reason, "Why the port is not ok: one series per reason that holds now", "gauge");
  for (const PortHealth& p : h.ports) {
    if (p.reasons == 0) continue;
    labels.clear();
    port_labels(p.key, "node_guid", "port", labels);
    for (size_t bit = 0; bit < alerts::kHealthReasonCount; ++bit) {
      if ((p.reasons >> bit & 1) == 0) continue;
      extra.assign(",reason=\"").append(alerts::health_reason_name(bit)).append("\"");
      gauge_line(o.text, reason, labels, 1, extra);
    }
    o.done();
  }
}

void render_links(const HealthSnapshot& h, Output& o) {
  const std::string name = "infiniband_link_health";
  header(o.text, name,
         "Link health, both ends combined (named by the lower end): 1 for its state (ok, "
         "degraded, failing), 0 for the others",
         "gauge");
  std::string labels;
  std::string extra;
  for (const alerts::LinkHealth& l : h.links) {
    labels.clear();
    port_labels(l.a, "node_guid", "port", labels);
    labels.push_back(',');
    port_labels(l.b, "remote_node_guid", "remote_port", labels);
    for (const HealthState s : kStates) {
      extra.assign(",state=\"").append(alerts::health_state_name(s)).append("\"");
      gauge_line(o.text, name, labels, s == l.state ? 1 : 0, extra);
    }
    o.done();
  }
}

// Roots and victims of congestion (congestion.h): a series per port that has a role, and per
// root the number of victims whose waiting traces to it.
void render_congestion(const HealthSnapshot& h, Output& o) {
  const alerts::Congestion& c = h.congestion;
  const std::string role = fabric_metric("congestion");
  header(o.text, role,
         "1 for a port that is a root of congestion (it sends at close to line rate and still "
         "waits, or waits on a receiver that returns no credits) or a victim (it waits while "
         "sending little); ports without a role have no series",
         "gauge");
  std::string labels;
  // Both lists are sorted by key: merged, so the series come in port order.
  size_t r = 0;
  size_t v = 0;
  while (r < c.roots.size() || v < c.victims.size()) {
    const bool root =
        v == c.victims.size() || (r < c.roots.size() && c.roots[r].key < c.victims[v].key);
    labels.clear();
    port_labels(root ? c.roots[r++].key : c.victims[v++].key, "node_guid", "port", labels);
    gauge_line(o.text, role, labels, 1, root ? ",role=\"root\"" : ",role=\"victim\"");
    o.done();
  }
  const std::string victims = fabric_metric("congestion_victims");
  header(o.text, victims, "Of a congestion root: the victims whose waiting traces to it", "gauge");
  for (const alerts::CongestionRoot& root : c.roots) {
    labels.clear();
    port_labels(root.key, "node_guid", "port", labels);
    gauge_line(o.text, victims, labels, root.victims);
    o.done();
  }
}

// One series per switch down (or rebooted in this snapshot): the one thing to alert on when a
// switch loses power, rather than each of its ports and peers.
void render_switches_down(const HealthSnapshot& h, Output& o) {
  const std::string name = "infiniband_switch_down";
  header(o.text, name,
         "1 for a switch that is down (every Active port went down, or it left discovery) or "
         "rebooted (every port's counters cleared at once); no series for other switches",
         "gauge");
  std::string labels;
  for (const uint64_t guid : h.switches_down) {
    labels.assign("node_guid=\"").append(collector::guid_string(guid)).append("\"");
    gauge_line(o.text, name, labels, 1);
    o.done();
  }
}

}  // namespace

void FabricRenderer::render_health(const HealthSnapshot& h, std::string& scratch, const Sink& sink,
                                   size_t chunk_bytes) const {
  if (!groups_.health) return;
  scratch.clear();
  Output o{scratch, &sink, chunk_bytes};
  port_gauge(h, o, "symbol_ber",
             "Symbol errors per bit received over health.ber-window (bits: active lanes x the "
             "lane data rate x the time successful reads covered); absent without covered time",
             [](const PortHealth& p) { return static_cast<double>(p.symbol_ber); });
  port_gauge(h, o, "effective_ber",
             "RS-FEC uncorrectable blocks per bit over health.ber-window (post-FEC)",
             [](const PortHealth& p) { return static_cast<double>(p.effective_ber); });
  port_gauge(h, o, "raw_ber",
             "RS-FEC corrected symbols x 10 bits per bit over health.ber-window (pre-FEC, an "
             "upper bound: a corrected symbol holds 1 to 10 bad bits)",
             [](const PortHealth& p) { return static_cast<double>(p.raw_ber); });
  port_gauge(
      h, o, "fec_corrected_symbols_per_second",
      "RS-FEC symbols corrected per second over health.flap-window",
      [](const PortHealth& p) { return static_cast<double>(p.fec_corrected_symbols_per_second); });
  port_gauge(h, o, "link_flaps", "LinkDowned + LinkErrorRecovery increases over health.flap-window",
             [](const PortHealth& p) { return static_cast<double>(p.link_flaps); });
  render_states(h, o);
  render_links(h, o);
  render_congestion(h, o);
  render_switches_down(h, o);
  if (!scratch.empty()) sink(scratch);
  scratch.clear();
}

}  // namespace ibpulse::exporters::prometheus
