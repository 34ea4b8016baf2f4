#include "ibpulse/exporters/prometheus/config_keys.h"

namespace ibpulse::exporters::prometheus {

config::Keys<WebOptions> web_keys() {
  return {
      {{"web.listen-address",
        "Address of the Prometheus endpoint (/metrics; /metrics/self, the daemon's own "
        "metrics alone; / for status), [host]:port; off: none",
        ":9731"},
       config::text(IBPULSE_CONFIG_FIELD(listen_address))},
      {{"web.config-file",
        "Web config file for TLS and basic auth of the endpoint, in the Prometheus "
        "exporter-toolkit format (tls_server_config, basic_auth_users; docs/operations.md); "
        "re-read at SIGHUP. Also --web.config.file, the exporter-toolkit's flag",
        ""},
       config::text(IBPULSE_CONFIG_FIELD(config_file))},
      {{"collect.counters", "Export the PortCounters/PortCountersExtended counters", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.counters))},
      {{"collect.error-details",
        "Export the PortRcvErrorDetails and PortXmitDiscardDetails counters", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.error_details))},
      {{"collect.flow-control", "Export the PortFlowCtlCounters and PortOpRcvCounters counters",
        "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.flow_control))},
      {{"collect.vl", "Export the per-VL counter families (up to 16 series per port each)",
        "false"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.vl))},
      {{"collect.lanes", "Export the per-lane extended speeds counters (12 series per port each)",
        "false"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.lanes))},
      {{"collect.health",
        "Export link health: BERs, flaps, health state and reasons, per port and per link", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.health))},
      {{"collect.if-mib", "Export the IF-MIB octet, packet, discard and error counters", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.if_mib))},
      {{"collect.sampling",
        "Export the per-VL traffic of the sampling.ports (PortSamples) and its coverage", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.sampling))},
      {{"collect.link",
        "Export the PortInfo gauges, utilisation, read age, saturation and port info", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.link))},
      {{"collect.partitions",
        "Export each port's partition keys and membership (infiniband_port_partition_info: one "
        "series per port and P_Key)",
        "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(collect.partitions))},
  };
}

}  // namespace ibpulse::exporters::prometheus
