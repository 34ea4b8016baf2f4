#include "ibpulse/exporters/snmp/config_keys.h"

#include <set>

#include "ibpulse/collector/sm_notice.h"

namespace ibpulse::exporters::snmp {
namespace {

using config::Keys;

// Each a map; best kept in the config file, where the passwords are not in `ps`.
Status set_users(EndpointOptions& o, const ConfigNode& v) {
  std::vector<SnmpUser> users;
  for (const ConfigNode* item : v.as_list()) {
    auto user = parse_snmp_user(*item);
    if (!user) return Error{user.error()};
    users.push_back(std::move(*user));
  }
  o.agent.users = std::move(users);
  return Ok{};
}

Status set_trap_sinks(EndpointOptions& o, const ConfigNode& v) {
  o.agent.trap_sinks.clear();
  const auto items = v.as_list();
  for (size_t i = 0; i < items.size(); ++i) {
    auto sink = parse_trap_sink(*items[i]);
    if (!sink) return Err("sink {}: {}", i + 1, sink.error());
    o.agent.trap_sinks.push_back(std::move(*sink));
  }
  return Ok{};
}

// Trap numbers (each item may list several, comma-separated), "all" or "none".
Status set_sma_notifications(EndpointOptions& o, const ConfigNode& v) {
  std::set<uint16_t> traps;
  for (const ConfigNode* item : v.as_list()) {
    if (!item->is_scalar()) return Err("a list of SMA trap numbers");
    auto some = collector::parse_sma_traps(item->text());
    if (!some) return Error{some.error()};
    traps.insert(some->begin(), some->end());
  }
  o.agent.sma_notifications.assign(traps.begin(), traps.end());
  return Ok{};
}

Keys<EndpointOptions> access_keys() {
  return {
      {{"snmp.listen",
        "Address of the SNMP agent: HOST:PORT (UDP), [IPV6]:PORT, or net-snmp's "
        "udp:/udp6:/tcp:/tcp6: forms (udp6:[::1]:161); [::]:161 is every address, IPv6 and "
        "IPv4; ports below 1024 need CAP_NET_BIND_SERVICE; off: no agent",
        std::string(kDefaultListen)},
       config::text(IBPULSE_CONFIG_FIELD(agent.listen))},
      {{"snmp.community",
        "Read-only SNMPv1/v2c communities (list); none: v1/v2c are refused. COMMUNITY@0x<node "
        "GUID> reads one node's context",
        ""},
       config::strings(IBPULSE_CONFIG_FIELD(agent.communities))},
      {{"snmp.sources",
        "Where v1/v2c requests may come from: default (anywhere, IPv4 and IPv6) or an IPv4 or "
        "IPv6 address[/prefix] (list)",
        "default"},
       config::strings(IBPULSE_CONFIG_FIELD(agent.sources))},
      {{"snmp.users",
        "SNMPv3 users, authPriv (list of maps: name, auth-protocol (SHA-256), auth-password, "
        "priv-protocol (AES), priv-password); best kept in the config file",
        "", true, true},
       set_users},
      {{"snmp.node-contexts",
        "Serve each node in its own context, named 0x<node GUID>, with ifIndex = port number",
        "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(agent.node_contexts))},
      {{"snmp.agentx",
        "AgentX subagent mode: the host snmpd's AgentX socket (unix:/var/agentx/master or "
        "tcp:127.0.0.1:705); snmpd then answers managers and snmp.listen, community, sources "
        "and users do not apply. Empty: ibpulse is its own agent",
        ""},
       config::text(IBPULSE_CONFIG_FIELD(agent.agentx))},
      {{"snmp.agentx-context",
        "In AgentX mode, the context that holds the fabric (never the default context, where "
        "the host's own ifTable is)",
        "ib"},
       config::text(IBPULSE_CONFIG_FIELD(agent.agentx_context))},
  };
}

Keys<EndpointOptions> notification_keys() {
  return {
      {{"snmp.trap-sink",
        "Notification receivers sent v2c traps with snmp.trap-community, HOST[:PORT], "
        "[IPV6][:PORT] or net-snmp's udp:/udp6:/tcp:/tcp6: forms (list; port 162 by default); "
        "works whether or not v2c reads are enabled",
        ""},
       config::strings(IBPULSE_CONFIG_FIELD(trap_sink_addresses))},
      {{"snmp.trap-community", "Community of the snmp.trap-sink traps", "public"},
       config::text(IBPULSE_CONFIG_FIELD(trap_community))},
      {{"snmp.trap-sinks",
        "Notification receivers (list of maps: address, type (v2c-trap, v3-trap, v3-inform), "
        "community, user, auth-protocol, auth-password, priv-protocol, priv-password, timeout, "
        "retries); best kept in the config file",
        "", true, true},
       set_trap_sinks},
      {{"snmp.link-up-down-traps",
        "Send IF-MIB linkDown/linkUp when a port's ifOperStatus changes (ifLinkUpDownTrapEnable)",
        "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(agent.link_up_down_traps))},
      {{"snmp.sma-notifications",
        "The IB-SMA-MIB notifications to send, by InfiniBand trap number (list; each item may "
        "name several, comma-separated): 128 link state change, 129 local link integrity and "
        "130 buffer overrun thresholds reached, 131 flow control watchdog, 144 capability mask "
        "and 145 system image GUID modified, 256 bad M_Key, 257 bad P_Key, 258 bad Q_Key, 259 "
        "bad P_Key at a switch port; all or none",
        "all"},
       set_sma_notifications},
      {{"snmp.notification-queue",
        "Notifications waiting for the agent thread, and per sink; the oldest are dropped "
        "beyond it",
        "1000"},
       config::number(1, 1000000, IBPULSE_CONFIG_FIELD(agent.notification_queue))},
      {{"snmp.sys-name", "sysName of the fabric's context (default: the host name)", "", true},
       config::text(IBPULSE_CONFIG_FIELD(agent.system.name))},
      {{"snmp.sys-contact", "sysContact", "", true},
       config::text(IBPULSE_CONFIG_FIELD(agent.system.contact))},
      {{"snmp.sys-location", "sysLocation", "", true},
       config::text(IBPULSE_CONFIG_FIELD(agent.system.location))},
  };
}

}  // namespace

Result<SnmpUser> parse_snmp_user(const ConfigNode& node) {
  if (!node.is_map()) return Err("a user is a map of name, auth-password, priv-password, ...");
  SnmpUser u;
  for (const auto& [key, value] : node.fields()) {
    if (!value.is_scalar()) return Err("user field '{}' must be text", key);
    const std::string& s = value.text();
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
  return u;
}

Keys<EndpointOptions> snmp_keys() {
  Keys<EndpointOptions> keys = access_keys();
  for (auto& k : notification_keys())
    keys.push_back(std::move(k));
  return keys;
}

}  // namespace ibpulse::exporters::snmp
