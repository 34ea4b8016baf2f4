#pragma once
// The fabric's metrics in the Prometheus text format (0.0.4), written straight from a
// FabricSnapshot into a caller's buffer: no registry, nothing per series kept between scrapes
// (prometheus-cpp keeps a double and ~390 bytes per series; at 70,000 ports x 30 metrics that
// is seconds per scrape and a GiB of memory). Names come from the counter schema
// (docs/metrics.md); counters are exact 64-bit integers.
//
// Labels are small on the counters (`node_guid`, `port`); descriptive ones are on
// `infiniband_port_info` and `infiniband_node_info`, for joins with `on(node_guid, port)
// group_left`.
//
// Thread safety: render() is const and may run on several threads at once (each with its own
// buffer); the snapshot is immutable.

#include <functional>
#include <string>
#include <string_view>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/health.h"

namespace ibpulse::exporters::prometheus {

// Metric groups, selectable like node_exporter's collectors (`--collect.<group>`), so very large
// fabrics can limit cardinality. The defaults carry every PortCounters/PortCountersExtended
// counter and the IF-MIB values (about 40 series per port).
struct MetricGroups {
  bool counters = true;       // PortCounters / PortCountersExtended (data, packets, errors, wait)
  bool error_details = true;  // PortRcvErrorDetails, PortXmitDiscardDetails
  bool flow_control = true;   // PortFlowCtlCounters, PortOpRcvCounters
  bool vl = false;            // per-VL families (x the VLs read: up to 16 series each)
  bool lanes = false;         // PortExtendedSpeedsCounters per lane (x 12)
  bool if_mib = true;         // the IF-MIB octet, packet, discard and error counters
  bool sampling = true;       // per-VL traffic from PortSamples (only the sampling.ports)
  bool link = true;           // PortInfo gauges, utilisation, read age, saturation, info
  bool health = true;         // link health: BERs, flaps, health state and reasons
  bool partitions = true;     // each port's P_Keys (one series per port and partition)

  // The group of a schema counter (by the attribute it is read from).
  bool has(const schema::Counter& counter) const;
};

class FabricRenderer {
 public:
  explicit FabricRenderer(MetricGroups groups = {}) : groups_(groups) {}

  using Sink = std::function<void(std::string_view chunk)>;

  // Appends every fabric metric family of `snapshot` to `out`.
  void render(const converters::FabricSnapshot& snapshot, std::string& out) const;
  // The same, streamed: `sink` gets the text in chunks of about `chunk_bytes`, written in the
  // reused `scratch`, so a 70,000-port scrape (~250 MB of text) never sits in memory whole.
  void render(const converters::FabricSnapshot& snapshot, std::string& scratch, const Sink& sink,
              size_t chunk_bytes = 1 << 20) const;
  // The link health gauges (metric group `health`), streamed the same way.
  void render_health(const alerts::HealthSnapshot& health, std::string& scratch, const Sink& sink,
                     size_t chunk_bytes = 1 << 20) const;

 private:
  MetricGroups groups_;
};

// `s` escaped for a label value: backslash, double quote and newline (the text format's rule).
void append_escaped_label_value(std::string_view s, std::string& out);

}  // namespace ibpulse::exporters::prometheus
