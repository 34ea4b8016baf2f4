// Every key `ibpulse run` takes: the modules' own (declared beside their options), nested into
// DaemonConfig, and the few that span modules or belong to the daemon itself.
#include "ibpulse/collector/config_keys.h"

#include <fmt/format.h>

#include "ibpulse/converters/config_keys.h"
#include "ibpulse/daemon/config.h"
#include "ibpulse/exporters/prometheus/config_keys.h"
#include "ibpulse/exporters/snmp/config_keys.h"
#include "ibpulse/schema/counters.h"

namespace ibpulse::daemon {
namespace {

using config::Keys;
using namespace std::chrono_literals;

// The poller asks each node's tick, or the converter uses the one configured for all.
Status set_xmit_wait_tick(DaemonConfig& c, const ConfigNode& v) {
  if (auto one = config::one_value(v); !one) return one;
  const bool automatic = v.text() == "auto";
  c.poller.ask_xmit_wait_tick = automatic;
  if (automatic) {
    c.convert.converter.xmit_wait_tick.reset();
    return Ok{};
  }
  auto tick = parse_short_duration(v.text());
  if (!tick) return Error{tick.error()};
  c.convert.converter.xmit_wait_tick = *tick;
  return Ok{};
}

Keys<DaemonConfig> collector_keys() {
  Keys<DaemonConfig> keys;
  config::nest(keys, collector::poller_keys(), IBPULSE_CONFIG_FIELD(poller));
  config::nest(keys, collector::sm_subscription_keys(), IBPULSE_CONFIG_FIELD(sm_subscription));
  keys.push_back(
      {{"fabric.ports",
        "Local ports CA:PORT,... (or all: every active one): ports of one subnet share its "
        "reads, each subnet (rail) is polled on its own; instead of fabric.ca/fabric.ca-port",
        ""},
       [](DaemonConfig& c, const ConfigNode& v) -> Status {
         auto items = config::texts(v);
         if (!items) return Error{items.error()};
         auto ports = collector::parse_local_ports(*items);
         if (!ports) return Error{ports.error()};
         c.all_local_ports = ports->empty();
         c.local_ports = std::move(*ports);
         return Ok{};
       }});
  keys.push_back(
      {{"discovery.cache-max-age",
        "Start from the topology the last discovery cached in state.dir (one file per local "
        "port) when it is younger than this, instead of discovering at start; off: always "
        "discover at start (the cache is still written while state.save-interval is on: a "
        "restart keeps polling the nodes its first discovery misses)",
        "off"},
       config::duration_or_off(IBPULSE_CONFIG_FIELD(discovery_cache_max_age), 1s)});
  return keys;
}

Keys<DaemonConfig> all_keys() {
  Keys<DaemonConfig> keys = collector_keys();
  config::nest(keys, converters::convert_loop_keys(), IBPULSE_CONFIG_FIELD(convert));
  config::nest(keys, exporters::prometheus::web_keys(), IBPULSE_CONFIG_FIELD(web));
  config::nest(keys, exporters::snmp::snmp_keys(), IBPULSE_CONFIG_FIELD(snmp));
  config::nest(keys, exporters::alerts::alert_keys(), IBPULSE_CONFIG_FIELD(alerts));
  config::nest(keys, exporters::alerts::health_keys(), IBPULSE_CONFIG_FIELD(health));
  keys.push_back(
      {{"congestion.xmit-wait-tick",
        fmt::format("The period of a PortXmitWait tick, from 1ns to 1s: wait ratio = ticks x "
                    "this / the interval. auto: each node's own, from its PortSamplesControl "
                    "Tick (Tick + 1 byte times of one lane at the link's speed), {} ns where a "
                    "node does not answer (see docs/congestion.md)",
                    schema::kDefaultXmitWaitTickNs),
        "auto"},
       set_xmit_wait_tick});
  config::nest(keys, exporters::remote_write::remote_write_keys(),
               IBPULSE_CONFIG_FIELD(remote_write));
  keys.push_back(
      {{"collector.ring-size",
        "Samples buffered between each poller and the converter (408 bytes each); a full ring "
        "drops samples (ibpulse_ring_drops_total)",
        "32768"},
       config::number(1024, 1u << 24, IBPULSE_CONFIG_FIELD(ring_size))});
  return keys;
}

}  // namespace

const config::Keys<DaemonConfig>& config_keys() {
  static const Keys<DaemonConfig> keys = all_keys();
  return keys;
}

}  // namespace ibpulse::daemon
