#include "daemon_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "config_setters.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/base/number.h"
#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/sampler.h"

namespace ibpulse::cli {
namespace {

std::vector<KeyDef> general_keys();

// Each user a map (YAML) or its JSON text (a flag): name, auth-protocol, auth-password,
// priv-protocol, priv-password.
Status set_snmp_users(DaemonConfig& c, const std::vector<std::string>& v) {
  std::vector<exporters::snmp::SnmpUser> users;
  for (const std::string& text : v) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) return Err("a user is a map of name, auth-password, priv-password, ...");
    exporters::snmp::SnmpUser u;
    for (const auto& [key, value] : j.items()) {
      if (key.starts_with('@')) continue;  // where the config reader found it
      if (!value.is_string()) return Err("user field '{}' must be text", key);
      const std::string s = value.get<std::string>();
      if (key == "name") {
        u.name = s;
      } else if (key == "auth-protocol") {
        u.auth_protocol = s;
      } else if (key == "auth-password") {
        u.auth_password = s;
      } else if (key == "priv-protocol") {
        u.priv_protocol = s;
      } else if (key == "priv-password") {
        u.priv_password = s;
      } else {
        return Err(
            "unknown user field '{}' (name, auth-protocol, auth-password, priv-protocol, "
            "priv-password)",
            key);
      }
    }
    users.push_back(std::move(u));
  }
  c.snmp.users = std::move(users);
  return Ok{};
}

// Each rule a map (YAML, with its line as `@line`) or its JSON text (a flag); parsed later, so
// that a bad rule is reported and skipped instead of stopping the daemon.
Status set_alert_rules(DaemonConfig& c, const std::vector<std::string>& v) {
  c.alert_rules.clear();
  for (const std::string& text : v)
    c.alert_rules.push_back({text, "--alerts.rules"});
  return Ok{};
}

// Each sink a map (YAML) or its JSON text (a flag): address, type, community, user, ...
Status set_trap_sinks(DaemonConfig& c, const std::vector<std::string>& v) {
  c.snmp.trap_sinks.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    auto sink = exporters::snmp::parse_trap_sink(v[i]);
    if (!sink) return Err("sink {}: {}", i + 1, sink.error());
    c.snmp.trap_sinks.push_back(std::move(*sink));
  }
  return Ok{};
}

// Each receiver a URL or a map (YAML; JSON text as a flag): remote_write::parse_endpoint.
Status set_remote_write_urls(DaemonConfig& c, const std::vector<std::string>& v) {
  c.remote_write.endpoints.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    auto e = exporters::remote_write::parse_endpoint(v[i]);
    if (!e) return Err("receiver {}: {}", i + 1, e.error());
    c.remote_write.endpoints.push_back(std::move(*e));
  }
  return Ok{};
}

// `0x<node GUID>:<port>` entries.
Status set_sampled_ports(DaemonConfig& c, const std::vector<std::string>& v) {
  std::vector<collector::PortKey> ports;
  for (const auto& item : v) {
    const auto colon = item.rfind(':');
    auto guid = parse_unsigned(item.substr(0, colon), 1, UINT64_MAX);
    auto port = colon == std::string::npos ? Result<uint64_t>(Error{""})
                                           : parse_unsigned(item.substr(colon + 1), 1, 254);
    if (!guid || !port) return Err("bad port '{}': write 0x<node GUID>:<port>", item);
    ports.push_back({*guid, static_cast<uint8_t>(*port)});
  }
  c.poller.sampling.ports = std::move(ports);
  return Ok{};
}

Status set_sampled_counters(DaemonConfig& c, const std::vector<std::string>& v) {
  if (v.empty() || v.size() > 15) return Err("give 1 to 15 counters, not {}", v.size());
  std::vector<uint16_t> selects;
  for (const auto& name : v) {
    auto code = collector::parse_select(name);
    if (!code) return Err("unknown counter '{}' (PortXmitData, PortRcvDataVL3, 0x4001, ...)", name);
    selects.push_back(*code);
  }
  c.poller.sampling.selects = std::move(selects);
  return Ok{};
}

const std::vector<KeyDef>& key_defs() {
  static const std::vector<KeyDef> keys = [] {
    std::vector<KeyDef> all = general_keys();
    for (KeyDef& k : link_health_keys())
      all.push_back(std::move(k));
    return all;
  }();
  return keys;
}

std::vector<KeyDef> general_keys() {
  using namespace std::chrono_literals;
  std::vector<KeyDef> keys = {
      {{"fabric.ca", "Local HCA to use (default: the first)", ""},
       text(IBPULSE_FIELD(poller.discovery.ca))},
      {{"fabric.ca-port", "Port of the local HCA (0: the first active)", "0"},
       number(0, 254, IBPULSE_FIELD(poller.discovery.ca_port))},
      {{"fabric.ports",
        "Local ports CA:PORT,... (or all: every active one): ports of one subnet share its "
        "reads, each subnet (rail) is polled on its own; instead of fabric.ca/fabric.ca-port",
        ""},
       [](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
         auto ports = collector::parse_local_ports(v);
         if (!ports) return Error{ports.error()};
         c.all_local_ports = ports->empty();
         c.local_ports = std::move(*ports);
         return Ok{};
       }},
      {{"fabric.node-name-map", "ib-node-name-map file naming nodes", ""},
       text(IBPULSE_FIELD(node_name_map))},
      {{"fabric.max-smps", "SMPs in flight during discovery", "64"},
       number(1, 256, IBPULSE_FIELD(poller.discovery.max_smps))},
      {{"fabric.m-key", "M_Key for fabrics that protect their SMAs", ""},
       [](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
         uint64_t key = 0;
         auto set = number(0, UINT64_MAX, [&key](DaemonConfig&) -> uint64_t& { return key; });
         if (auto s = set(c, v); !s) return s;
         c.poller.discovery.m_key = key;
         return Ok{};
       }},
      {{"discovery.timeout", "Timeout of a discovery SMP (libibnetdisc), before its retries",
        "500ms"},
       [](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
         if (auto one = one_value(v); !one) return one;
         auto d = parse_duration(v[0], std::chrono::milliseconds(1));
         if (!d) return Error{d.error()};
         c.poller.discovery.timeout_ms = static_cast<unsigned>(d->count());
         return Ok{};
       }},
      {{"discovery.retries", "Retries of a discovery SMP (libibnetdisc)", "2"},
       number(0, 20, IBPULSE_FIELD(poller.discovery.retries))},
      {{"discovery.missing-limit",
        "Discoveries in a row that must miss a node, over at least as many "
        "discovery.intervals less one, before its ports stop being polled (a flaky link "
        "loses SMPs; until then they are polled by their last LIDs, stale if unanswered); 1: "
        "at once",
        "3"},
       number(1, 100, IBPULSE_FIELD(poller.missing_limit))},
      {{"discovery.interval", "Time between rediscoveries", "5m"},
       duration(IBPULSE_FIELD(poller.rediscover), 1s)},
      {{"discovery.cache-max-age",
        "Start from the topology the last discovery cached in state.dir (one file per local "
        "port) when it is younger than this, instead of discovering at start; off: always "
        "discover at start (the cache is still written while state.save-interval is on: a "
        "restart keeps polling the nodes its first discovery misses)",
        "off"},
       duration_or_off(IBPULSE_FIELD(discovery_cache_max_age), 1s)},
      {{"mad.window", "PMA MADs in flight (capped at 64 on the simulator)", "256"},
       number(1, 4096, IBPULSE_FIELD(poller.mad.window))},
      {{"mad.per-node", "MADs in flight to one node", "16"},
       number(1, 4096, IBPULSE_FIELD(poller.mad.per_node))},
      {{"mad.timeout", "First attempt's timeout; each retry doubles it", "200ms"},
       duration(IBPULSE_FIELD(poller.mad.timeout))},
      {{"mad.retries", "Retries per MAD", "3"}, number(0, 20, IBPULSE_FIELD(poller.mad.retries))},
      {{"poll.counters-interval", "PortCounters/PortCountersExtended of every linked port", "1s"},
       duration(IBPULSE_FIELD(poller.intervals.counters), 10ms)},
      {{"poll.details-interval",
        "Error details, flow control, per-VL counters, extended speeds (FDR and faster links)",
        "10s"},
       duration(IBPULSE_FIELD(poller.intervals.details), 10ms)},
      {{"poll.idle-interval", "Ports without a link", "60s"},
       duration(IBPULSE_FIELD(poller.intervals.idle), 10ms)},
      {{"poll.port-info-interval",
        "PortInfo (SMP) of every port between discoveries: state, width, speed (off: none)", "10s"},
       duration_or_off(IBPULSE_FIELD(poller.intervals.port_info), 10ms)},
      {{"poll.skip-nodes", "Node GUIDs never polled (list)", ""},
       guids(IBPULSE_FIELD(poller.skip_nodes))},
      {{"poll.switch-port0", "Also read the counters of switch port 0 (management port)", "false"},
       boolean(IBPULSE_FIELD(poller.discovery.switch_port0))},
      {{"poll.no-extended-nodes",
        "Node GUIDs read through 32-bit PortCounters only, ignoring PortCountersExtended (list)",
        ""},
       guids(IBPULSE_FIELD(poller.no_extended_nodes))},
      {{"sampling.ports", "Ports to sample with PortSamples, as 0x<node GUID>:<port> (list)", ""},
       set_sampled_ports},
      {{"sampling.counters", "Counters of each sample (list, at most 15)",
        "PortXmitData,PortRcvData,PortXmitDataVL0-3,PortRcvDataVL0-3"},
       set_sampled_counters},
      {{"sampling.interval", "Sample length in the port's ticks", "1000000"},
       number(1, 0xFFFFFFFF, IBPULSE_FIELD(poller.sampling.interval))},
      {{"sampling.every", "Time between samples of a port", "10s"},
       duration(IBPULSE_FIELD(poller.sampling.every), 10ms)},
      {{"sampling.take-over", "Sample ports another manager is sampling", "false"},
       boolean(IBPULSE_FIELD(poller.sampling.take_over))},
      {{"counters.clear-policy",
        "never: leave hardware counters alone (other tools see them); threshold: clear a narrow "
        "counter without a 64-bit copy at counters.clear-threshold of its range",
        "never"},
       [](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
         if (auto one = one_value(v); !one) return one;
         if (v[0] == "never") {
           c.converter.clear_policy = converters::ClearPolicy::kNever;
         } else if (v[0] == "threshold") {
           c.converter.clear_policy = converters::ClearPolicy::kThreshold;
         } else {
           return Err("expected never or threshold, got '{}'", v[0]);
         }
         return Ok{};
       }},
      {{"counters.clear-threshold", "Fraction of a narrow counter's range that triggers a clear",
        "0.75"},
       [](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
         if (auto one = one_value(v); !one) return one;
         char* end = nullptr;
         const double f = std::strtod(v[0].c_str(), &end);
         if (v[0].empty() || *end != '\0' || !(f >= 0.1 && f <= 0.99)) {
           return Err("expected a fraction from 0.1 to 0.99, got '{}'", v[0]);
         }
         c.converter.clear_fraction = f;
         return Ok{};
       }},
      {{"counters.publish-interval", "Time between snapshots the exporters read", "1s"},
       duration(IBPULSE_FIELD(publish_interval), 10ms)},
      {{"counters.not-present-grace",
        "A port gone from discovery is reported notPresent this long, then forgotten (its "
        "ifIndex stays reserved)",
        "1h"},
       duration(IBPULSE_FIELD(converter.not_present_grace), 1s)},
      {{"counters.foreign-clear-window",
        "Three or more foreign clears (readings below the previous one we did not cause) within "
        "this time log a warning that another manager clears counters",
        "10m"},
       duration(IBPULSE_FIELD(foreign_clear_window), 1s)},
      {{"state.dir",
        "Directory of the counters' state file, which keeps totals and ifIndex numbers across "
        "restarts (a simulated fabric: its run directory; systemd: STATE_DIRECTORY; else "
        "~/.local/state/ibpulse)",
        ""},
       text(IBPULSE_FIELD(state_dir))},
      {{"state.save-interval",
        "Time between saves of the state file (also saved at stop); off: no state file, "
        "counters restart from the raw readings",
        "60s"},
       duration_or_off(IBPULSE_FIELD(state_save_interval))},
      {{"web.listen-address",
        "Address of the Prometheus endpoint (/metrics; /metrics/self, the daemon's own "
        "metrics alone; / for status), [host]:port; off: none",
        ":9731"},
       text(IBPULSE_FIELD(web_listen_address))},
      {{"web.config-file",
        "Web config file for TLS and basic auth of the endpoint, in the Prometheus "
        "exporter-toolkit format (tls_server_config, basic_auth_users; docs/operations.md); "
        "re-read at SIGHUP. Also --web.config.file, the exporter-toolkit's flag",
        ""},
       text(IBPULSE_FIELD(web_config_file))},
      {{"collect.counters", "Export the PortCounters/PortCountersExtended counters", "true"},
       boolean(IBPULSE_FIELD(collect.counters))},
      {{"collect.error-details",
        "Export the PortRcvErrorDetails and PortXmitDiscardDetails counters", "true"},
       boolean(IBPULSE_FIELD(collect.error_details))},
      {{"collect.flow-control", "Export the PortFlowCtlCounters and PortOpRcvCounters counters",
        "true"},
       boolean(IBPULSE_FIELD(collect.flow_control))},
      {{"collect.vl", "Export the per-VL counter families (up to 16 series per port each)",
        "false"},
       boolean(IBPULSE_FIELD(collect.vl))},
      {{"collect.lanes", "Export the per-lane extended speeds counters (12 series per port each)",
        "false"},
       boolean(IBPULSE_FIELD(collect.lanes))},
      {{"collect.health",
        "Export link health: BERs, flaps, health state and reasons, per port and per link", "true"},
       boolean(IBPULSE_FIELD(collect.health))},
      {{"collect.ext-speeds-layout",
        "PortExtendedSpeedsCounters' layout: auto (per port, as perfquery decides: the RS-FEC "
        "layout where the PMA has RS-FEC counters and PortInfoExtended says RS-FEC is active), "
        "legacy or rsfec (every linked port, whatever its speed, asking nothing)",
        "auto"},
       [](DaemonConfig& c, const std::vector<std::string>& v) -> Status {
         if (auto one = one_value(v); !one) return one;
         using collector::ExtSpeedsLayoutMode;
         const std::map<std::string, ExtSpeedsLayoutMode> modes = {
             {"auto", ExtSpeedsLayoutMode::kAuto},
             {"legacy", ExtSpeedsLayoutMode::kLegacy},
             {"rsfec", ExtSpeedsLayoutMode::kRsFec}};
         const auto found = modes.find(v[0]);
         if (found == modes.end()) return Err("expected auto, legacy or rsfec, got '{}'", v[0]);
         c.poller.ext_speeds_layout = found->second;
         return Ok{};
       }},
      {{"collect.if-mib", "Export the IF-MIB octet, packet, discard and error counters", "true"},
       boolean(IBPULSE_FIELD(collect.if_mib))},
      {{"collect.sampling",
        "Export the per-VL traffic of the sampling.ports (PortSamples) and its coverage", "true"},
       boolean(IBPULSE_FIELD(collect.sampling))},
      {{"collect.link",
        "Export the PortInfo gauges, utilisation, read age, saturation and port info", "true"},
       boolean(IBPULSE_FIELD(collect.link))},
      {{"snmp.listen",
        "Address of the SNMP agent: HOST:PORT (UDP), [IPV6]:PORT, or net-snmp's "
        "udp:/udp6:/tcp:/tcp6: forms (udp6:[::1]:161); [::]:161 is every address, IPv6 and "
        "IPv4; ports below 1024 need CAP_NET_BIND_SERVICE; off: no agent",
        std::string(exporters::snmp::kDefaultListen)},
       text(IBPULSE_FIELD(snmp.listen))},
      {{"snmp.community",
        "Read-only SNMPv1/v2c communities (list); none: v1/v2c are refused. COMMUNITY@0x<node "
        "GUID> reads one node's context",
        ""},
       strings(IBPULSE_FIELD(snmp.communities))},
      {{"snmp.sources",
        "Where v1/v2c requests may come from: default (anywhere, IPv4 and IPv6) or an IPv4 or "
        "IPv6 address[/prefix] (list)",
        "default"},
       strings(IBPULSE_FIELD(snmp.sources))},
      {{"snmp.users",
        "SNMPv3 users, authPriv (list of maps: name, auth-protocol (SHA-256), auth-password, "
        "priv-protocol (AES), priv-password); best kept in the config file",
        ""},
       set_snmp_users},
      {{"snmp.node-contexts",
        "Serve each node in its own context, named 0x<node GUID>, with ifIndex = port number",
        "true"},
       boolean(IBPULSE_FIELD(snmp.node_contexts))},
      {{"snmp.agentx",
        "AgentX subagent mode: the host snmpd's AgentX socket (unix:/var/agentx/master or "
        "tcp:127.0.0.1:705); snmpd then answers managers and snmp.listen, community, sources "
        "and users do not apply. Empty: ibpulse is its own agent",
        ""},
       text(IBPULSE_FIELD(snmp.agentx))},
      {{"snmp.agentx-context",
        "In AgentX mode, the context that holds the fabric (never the default context, where "
        "the host's own ifTable is)",
        "ib"},
       text(IBPULSE_FIELD(snmp.agentx_context))},
      {{"snmp.trap-sink",
        "Notification receivers sent v2c traps with snmp.trap-community, HOST[:PORT], "
        "[IPV6][:PORT] or net-snmp's udp:/udp6:/tcp:/tcp6: forms (list; port 162 by default); "
        "works whether or not v2c reads are enabled",
        ""},
       strings(IBPULSE_FIELD(trap_sink_addresses))},
      {{"snmp.trap-community", "Community of the snmp.trap-sink traps", "public"},
       text(IBPULSE_FIELD(trap_community))},
      {{"snmp.trap-sinks",
        "Notification receivers (list of maps: address, type (v2c-trap, v3-trap, v3-inform), "
        "community, user, auth-protocol, auth-password, priv-protocol, priv-password, timeout, "
        "retries); best kept in the config file",
        ""},
       set_trap_sinks},
      {{"snmp.link-up-down-traps",
        "Send IF-MIB linkDown/linkUp when a port's ifOperStatus changes (ifLinkUpDownTrapEnable)",
        "true"},
       boolean(IBPULSE_FIELD(snmp.link_up_down_traps))},
      {{"snmp.notification-queue",
        "Notifications waiting for the agent thread, and per sink; the oldest are dropped "
        "beyond it",
        "1000"},
       number(1, 1000000, IBPULSE_FIELD(snmp.notification_queue))},
      {{"snmp.sys-name", "sysName of the fabric's context (default: the host name)", ""},
       text(IBPULSE_FIELD(snmp.system.name))},
      {{"snmp.sys-contact", "sysContact", ""}, text(IBPULSE_FIELD(snmp.system.contact))},
      {{"snmp.sys-location", "sysLocation", ""}, text(IBPULSE_FIELD(snmp.system.location))},
      {{"alerts.rules",
        "Threshold rules (list of maps: name, counter or state, condition, window, for, "
        "clear-after, renotify, severity, scope; docs/alerts.md); best kept in the config file",
        ""},
       set_alert_rules},
      {{"alerts.default-rules",
        "Also apply the default rule set (docs/alerts.md); a configured rule of the same name "
        "replaces a default one",
        "true"},
       boolean(IBPULSE_FIELD(default_alert_rules))},
      {{"alerts.rate-limit", "Notifications per alerts.rate-interval over the whole fabric", "50"},
       number(1, 1000000, IBPULSE_FIELD(alerts.rate_limit))},
      {{"alerts.rate-interval",
        "Interval of the notification rate limit; one ibpulseRateLimited summary ends each "
        "interval that withheld any",
        "10s"},
       duration(IBPULSE_FIELD(alerts.rate_interval), 1s)},
      {{"alerts.link-hold-down",
        "After a port's linkDown/linkUp pair, further link changes of that port within this "
        "time are withheld and only its final state is notified (off: no hold-down)",
        "60s"},
       duration_or_off(IBPULSE_FIELD(alerts.link_hold_down))},
      {{"shard.index",
        "This collector's shard, 1..shard.count: it polls and exports only the nodes rendezvous "
        "hashing of node GUIDs gives it (docs/scale-out.md; `ibpulse shard-of` computes them); "
        "read at start",
        "1"},
       number(1, 4096, IBPULSE_FIELD(poller.shard.index))},
      {{"shard.count", "Collectors sharing the fabric (1: this one polls every node)", "1"},
       number(1, 4096, IBPULSE_FIELD(poller.shard.count))},
      {{"shard.replicas",
        "Collectors polling each node, 1..shard.count: with 2, one dead collector leaves no gap "
        "(each node's PMA is read that many times)",
        "1"},
       number(1, 4096, IBPULSE_FIELD(poller.shard.replicas))},
      {{"remote-write.url",
        "Prometheus remote-write receivers (list; each a URL or a map: url, headers, username, "
        "password, password-file, bearer-token-file, tls-ca-file, tls-cert-file, tls-key-file, "
        "external-labels, batch-size, queue-samples, queue-bytes, concurrency, timeout; "
        "docs/remote-write.md)",
        ""},
       set_remote_write_urls},
      {{"remote-write.metrics",
        "Metric families sent by remote write, by name or prefix (list; default: all of "
        "/metrics' fabric metrics)",
        ""},
       strings(IBPULSE_FIELD(remote_write.metrics))},
      {{"remote-write.changed-only",
        "Send a series whose value did not change only every remote-write.resend", "true"},
       boolean(IBPULSE_FIELD(remote_write.changed_only))},
      {{"remote-write.resend", "Time between sends of an unchanged series (changed-only)", "60s"},
       duration(IBPULSE_FIELD(remote_write.resend), 1s)},
      {{"remote-write.instance",
        "The instance label of the daemon's own ibpulse_* series when pushed (port series never "
        "carry it); give each collector of a host its own",
        "the host name"},
       text(IBPULSE_FIELD(remote_write.instance))},
      {{"collector.ring-size",
        "Samples buffered between each poller and the converter (408 bytes each); a full ring "
        "drops samples (ibpulse_ring_drops_total)",
        "32768"},
       number(1024, 1u << 24, IBPULSE_FIELD(ring_size))},
  };
  return keys;
}

const KeyDef* find_key(const std::string& name) {
  for (const auto& k : key_defs()) {
    if (k.key.name == name) return &k;
  }
  return nullptr;
}

// Scalars stay text: the setters parse them as they parse flags.
nlohmann::json yaml_to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& field : node)
      j[field.first.as<std::string>()] = yaml_to_json(field.second);
    return j;
  }
  if (node.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& item : node)
      j.push_back(yaml_to_json(item));
    return j;
  }
  return node.IsNull() ? nlohmann::json() : nlohmann::json(node.as<std::string>());
}

std::vector<std::string> yaml_values(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (item.IsMap()) {  // an SNMPv3 user, a rule: handed on as JSON text with its line
        nlohmann::json j = yaml_to_json(item);
        j["@line"] = item.Mark().line + 1;
        out.push_back(j.dump());
      } else if (item.IsSequence()) {  // not what any key takes: its setter says so
        out.push_back(yaml_to_json(item).dump());
      } else {
        out.push_back(item.IsNull() ? std::string() : item.as<std::string>());
      }
    }
  } else if (node.IsMap()) {
    out.push_back(yaml_to_json(node).dump());
  } else if (!node.IsNull()) {
    out.push_back(node.as<std::string>());
  }
  return out;
}

Status walk(const YAML::Node& node, const std::string& prefix, const std::string& file,
            std::map<std::string, std::pair<std::vector<std::string>, int>>& out) {
  for (const auto& entry : node) {
    const std::string name = prefix + entry.first.as<std::string>();
    const int line = entry.first.Mark().line + 1;
    if (entry.second.IsMap()) {
      if (auto s = walk(entry.second, name + ".", file, out); !s) return s;
      continue;
    }
    if (find_key(name) == nullptr) {
      return Err("{}:{}: unknown key '{}' (see `ibpulse run --help` for the keys)", file, line,
                 name);
    }
    try {
      out[name] = {yaml_values(entry.second), line};
    } catch (const nlohmann::json::exception&) {
      // A list item that is a map (a rule, a user) travels as JSON text, which must be UTF-8.
      return Err("{}:{}: {}: a value is not valid UTF-8 text", file, line, name);
    }
  }
  return Ok{};
}

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = [] {
    std::vector<ConfigKey> out;
    for (const auto& k : key_defs())
      out.push_back(k.key);
    return out;
  }();
  return keys;
}

Result<std::map<std::string, std::pair<std::vector<std::string>, int>>> read_config_file(
    const std::filesystem::path& path) {
  std::map<std::string, std::pair<std::vector<std::string>, int>> out;
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    if (root.IsNull()) return out;
    if (!root.IsMap()) return Err("{}: the configuration must be a map of keys", path.string());
    if (auto s = walk(root, "", path.string(), out); !s) return Error{s.error()};
  } catch (const YAML::Exception& e) {
    return Err("{}:{}: {}", path.string(), e.mark.line + 1, e.msg);
  }
  return out;
}

Result<DaemonConfig> build_config(const std::filesystem::path& file, const ConfigValues& flags) {
  DaemonConfig config;
  (void)set_sampled_counters(
      config,
      {"PortXmitData", "PortRcvData", "PortXmitDataVL0", "PortXmitDataVL1", "PortXmitDataVL2",
       "PortXmitDataVL3", "PortRcvDataVL0", "PortRcvDataVL1", "PortRcvDataVL2", "PortRcvDataVL3"});
  if (!file.empty()) {
    auto values = read_config_file(file);
    if (!values) return Error{values.error()};
    for (const auto& [name, entry] : *values) {
      if (flags.contains(name)) continue;  // the flag wins
      if (auto s = find_key(name)->set(config, entry.first); !s) {
        return Err("{}:{}: {}: {}", file.string(), entry.second, name, s.error());
      }
    }
  }
  if (!file.empty() && !flags.contains("alerts.rules")) {
    for (auto& rule : config.alert_rules)
      rule.origin = file.string();
  }
  for (const auto& [name, value] : flags) {
    if (auto s = find_key(name)->set(config, value); !s) return Err("--{}: {}", name, s.error());
  }
  if (auto s = collector::validate(config.poller.shard); !s) return Error{s.error()};
  if (config.discovery_cache_max_age > config.poller.rediscover) {
    return Err(
        "--discovery.cache-max-age ({} s) must not exceed --discovery.interval ({} s): a cached "
        "topology is trusted no longer than a discovered one",
        std::chrono::duration_cast<std::chrono::seconds>(config.discovery_cache_max_age).count(),
        std::chrono::duration_cast<std::chrono::seconds>(config.poller.rediscover).count());
  }
  // The cache also tells a restart which nodes the last run polled (collector/discovery.h):
  // written wherever state is kept.
  if (config.discovery_cache_max_age.count() > 0 || config.state_save_interval.count() > 0) {
    const std::filesystem::path dir =
        config.state_dir.empty() ? default_state_dir() : std::filesystem::path(config.state_dir);
    config.poller.discovery.cache_file = dir / "topology";
    config.poller.discovery.cache_max_age =
        std::chrono::duration_cast<std::chrono::seconds>(config.discovery_cache_max_age);
  }
  if (const auto& c = config.health.congestion; c.victim_utilization > c.root_utilization) {
    return Err(
        "--congestion.victim-utilization ({}) must not exceed --congestion.root-utilization ({}): "
        "a port cannot send little and at line rate at once",
        c.victim_utilization, c.root_utilization);
  }
  config.converter.shard = config.poller.shard;
  if (!config.node_name_map.empty()) {
    auto names = collector::load_node_name_map(config.node_name_map);
    if (!names) return Error{names.error()};
    config.poller.discovery.names = std::move(*names);
  }
  return config;
}

std::filesystem::path default_state_dir() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (collector::current_mad_environment().simulated) {
    // A simulated fabric's state belongs to that fabric only: a new one with the same GUIDs
    // must not inherit it, so without its run directory there is no default at all.
    return env("IBPULSE_SIM_RUN_DIR");
  }
  if (const std::string systemd = env("STATE_DIRECTORY"); !systemd.empty()) {
    return systemd.substr(0, systemd.find(':'));  // the first, when the unit names several
  }
  if (const std::string xdg = env("XDG_STATE_HOME"); !xdg.empty()) {
    return std::filesystem::path(xdg) / "ibpulse";
  }
  if (const std::string home = env("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".local" / "state" / "ibpulse";
  }
  return {};
}

void add_config_flags(CLI::App& app, ConfigValues& flags) {
  for (const auto& k : key_defs()) {
    const std::string help = k.key.default_text.empty()
                                 ? k.key.help
                                 : fmt::format("{} (default {})", k.key.help, k.key.default_text);
    // The exporter-toolkit names this flag --web.config.file; sites' unit files use it.
    const std::string names =
        k.key.name == "web.config-file" ? "--web.config-file,--web.config.file" : "--" + k.key.name;
    auto* option = app.add_option_function<std::vector<std::string>>(
        names, [&flags, name = k.key.name](const std::vector<std::string>& v) { flags[name] = v; },
        help);
    // Lists split at commas (`--poll.skip-nodes 0x1,0x2`), except values that hold commas
    // themselves: a user's JSON map, free text.
    const bool text_with_commas = k.key.name == "snmp.users" || k.key.name == "alerts.rules" ||
                                  k.key.name == "snmp.trap-sinks" ||
                                  k.key.name == "remote-write.url" ||
                                  k.key.name.starts_with("snmp.sys-");
    if (!text_with_commas) option->delimiter(',');
    option->group("Configuration (also settable in the --config file)");
  }
}

}  // namespace ibpulse::cli
