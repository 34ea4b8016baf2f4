#include "ibpulse/collector/config_keys.h"

#include <set>

#include "ibpulse/collector/partitions.h"
#include "ibpulse/collector/sampler.h"

namespace ibpulse::collector {
namespace {

using config::Keys;
using namespace std::chrono_literals;

// `0x<node GUID>:<port>` entries.
Status set_sampled_ports(PollerOptions& o, const ConfigNode& v) {
  auto items = config::texts(v);
  if (!items) return Error{items.error()};
  std::vector<PortKey> ports;
  for (const auto& item : *items) {
    const auto colon = item.rfind(':');
    auto guid = parse_unsigned(item.substr(0, colon), 1, UINT64_MAX);
    auto port = colon == std::string::npos ? Result<uint64_t>(Error{""})
                                           : parse_unsigned(item.substr(colon + 1), 1, 254);
    if (!guid || !port) return Err("bad port '{}': write 0x<node GUID>:<port>", item);
    ports.push_back({*guid, static_cast<uint8_t>(*port)});
  }
  o.sampling.ports = std::move(ports);
  return Ok{};
}

Status set_sampled_counters(PollerOptions& o, const ConfigNode& v) {
  auto names = config::texts(v);
  if (!names) return Error{names.error()};
  if (names->empty() || names->size() > 15) {
    return Err("give 1 to 15 counters, not {}", names->size());
  }
  std::vector<uint16_t> selects;
  for (const auto& name : *names) {
    auto code = parse_select(name);
    if (!code) return Err("unknown counter '{}' (PortXmitData, PortRcvDataVL3, 0x4001, ...)", name);
    selects.push_back(*code);
  }
  o.sampling.selects = std::move(selects);
  return Ok{};
}

Keys<PollerOptions> discovery_keys() {
  return {
      {{"discovery.missing-limit",
        "Discoveries in a row that must miss a node, over at least as many "
        "discovery.intervals less one, before its ports stop being polled (a flaky link "
        "loses SMPs; until then they are polled by their last LIDs, stale if unanswered); 1: "
        "at once",
        "3"},
       config::number(1, 100, IBPULSE_CONFIG_FIELD(missing_limit))},
      {{"discovery.interval", "Time between rediscoveries", "5m"},
       config::duration(IBPULSE_CONFIG_FIELD(rediscover), 1s)},
  };
}

Keys<PollerOptions> poll_keys() {
  return {
      {{"poll.counters-interval", "PortCounters/PortCountersExtended of every linked port", "1s"},
       config::duration(IBPULSE_CONFIG_FIELD(intervals.counters), 10ms)},
      {{"poll.details-interval",
        "Error details, flow control, per-VL counters, extended speeds (FDR and faster links)",
        "10s"},
       config::duration(IBPULSE_CONFIG_FIELD(intervals.details), 10ms)},
      {{"poll.idle-interval", "Ports without a link", "60s"},
       config::duration(IBPULSE_CONFIG_FIELD(intervals.idle), 10ms)},
      {{"poll.port-info-interval",
        "PortInfo (SMP) of every port between discoveries: state, width, speed (off: none)", "10s"},
       config::duration_or_off(IBPULSE_CONFIG_FIELD(intervals.port_info), 10ms)},
      {{"poll.partition-tables",
        "Read each port's P_Key table after each discovery (PKeyTable SMPs, 32 entries each): "
        "IB-SMA-MIB's P_Key table and infiniband_port_partition_info",
        "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(partition_tables))},
      {{"poll.skip-nodes", "Node GUIDs never polled (list)", ""},
       config::guids(IBPULSE_CONFIG_FIELD(skip_nodes))},
      {{"poll.switch-port0", "Also read the counters of switch port 0 (management port)", "false"},
       config::boolean(IBPULSE_CONFIG_FIELD(discovery.switch_port0))},
      {{"poll.no-extended-nodes",
        "Node GUIDs read through 32-bit PortCounters only, ignoring PortCountersExtended (list)",
        ""},
       config::guids(IBPULSE_CONFIG_FIELD(no_extended_nodes))},
  };
}

Keys<PollerOptions> sampling_keys() {
  return {
      {{"sampling.ports", "Ports to sample with PortSamples, as 0x<node GUID>:<port> (list)", ""},
       set_sampled_ports},
      {{"sampling.counters", "Counters of each sample (list, at most 15)",
        "PortXmitData,PortRcvData,PortXmitDataVL0-3,PortRcvDataVL0-3"},
       set_sampled_counters},
      {{"sampling.interval", "Sample length in the port's ticks", "1000000"},
       config::number(1, 0xFFFFFFFF, IBPULSE_CONFIG_FIELD(sampling.interval))},
      {{"sampling.every", "Time between samples of a port", "10s"},
       config::duration(IBPULSE_CONFIG_FIELD(sampling.every), 10ms)},
      {{"sampling.take-over", "Sample ports another manager is sampling", "false"},
       config::boolean(IBPULSE_CONFIG_FIELD(sampling.take_over))},
  };
}

Keys<PollerOptions> shard_keys() {
  return {
      {{"shard.index",
        "This collector's shard, 1..shard.count: it polls and exports only the nodes rendezvous "
        "hashing of node GUIDs gives it (docs/scale-out.md; `ibpulse shard-of` computes them); "
        "read at start",
        "1"},
       config::number(1, 4096, IBPULSE_CONFIG_FIELD(shard.index))},
      {{"shard.count", "Collectors sharing the fabric (1: this one polls every node)", "1"},
       config::number(1, 4096, IBPULSE_CONFIG_FIELD(shard.count))},
      {{"shard.replicas",
        "Collectors polling each node, 1..shard.count: with 2, one dead collector leaves no gap "
        "(each node's PMA is read that many times)",
        "1"},
       config::number(1, 4096, IBPULSE_CONFIG_FIELD(shard.replicas))},
  };
}

void append(Keys<PollerOptions>& out, Keys<PollerOptions> more) {
  for (auto& k : more)
    out.push_back(std::move(k));
}

// A key naming a file that is read with the configuration: `load(path)` gives what `field`
// keeps (an error names the file); empty: nothing.
template <typename Load, typename Field>
auto file_key(Load load, Field field) {
  return [load, field](DiscoveryOptions& o, const ConfigNode& v) -> Status {
    if (auto one = config::one_value(v); !one) return one;
    auto& target = field(o);
    if (v.text().empty()) {
      target = {};
      return Ok{};
    }
    auto loaded = load(v.text());
    if (!loaded) return Error{loaded.error()};
    target = std::move(*loaded);
    return Ok{};
  };
}

}  // namespace

Keys<DiscoveryOptions> fabric_keys() {
  return {
      {{"fabric.ca", "Local HCA to use (default: the first)", ""},
       config::text(IBPULSE_CONFIG_FIELD(ca))},
      {{"fabric.ca-port", "Port of the local HCA (0: the first active)", "0"},
       config::number(0, 254, IBPULSE_CONFIG_FIELD(ca_port))},
      {{"fabric.node-name-map", "ib-node-name-map file naming nodes", ""},
       file_key(load_node_name_map, IBPULSE_CONFIG_FIELD(names))},
      {{"fabric.partitions-file",
        "The subnet manager's partition configuration (opensm's partitions.conf syntax): names "
        "the partitions of infiniband_port_partition_info (label partition)",
        ""},
       file_key(
           [](const std::filesystem::path& path) -> Result<PartitionNames> {
             auto conf = load_partitions_conf(path);
             if (!conf) return Error{conf.error()};
             return std::move(conf->names);
           },
           IBPULSE_CONFIG_FIELD(partition_names))},
      {{"fabric.max-smps", "SMPs in flight during discovery", "64"},
       config::number(1, 256, IBPULSE_CONFIG_FIELD(max_smps))},
      {{"fabric.m-key", "M_Key for fabrics that protect their SMAs", ""},
       [](DiscoveryOptions& o, const ConfigNode& v) -> Status {
         uint64_t key = 0;
         auto set = config::number(0, UINT64_MAX, [&key](auto&) -> uint64_t& { return key; });
         if (auto s = set(o, v); !s) return s;
         o.m_key = key;
         return Ok{};
       }},
      {{"discovery.timeout", "Timeout of a discovery SMP (libibnetdisc), before its retries",
        "500ms"},
       [](DiscoveryOptions& o, const ConfigNode& v) -> Status {
         std::chrono::milliseconds timeout{};
         auto set = config::duration([&timeout](auto&) -> auto& { return timeout; });
         if (auto s = set(o, v); !s) return s;
         o.timeout_ms = static_cast<unsigned>(timeout.count());
         return Ok{};
       }},
      {{"discovery.retries", "Retries of a discovery SMP (libibnetdisc)", "2"},
       config::number(0, 20, IBPULSE_CONFIG_FIELD(retries))},
  };
}

Keys<MadEngineOptions> mad_keys() {
  return {
      {{"mad.window", "PMA MADs in flight (capped at 64 on the simulator)", "256"},
       config::number(1, 4096, IBPULSE_CONFIG_FIELD(window))},
      {{"mad.per-node", "MADs in flight to one node", "16"},
       config::number(1, 4096, IBPULSE_CONFIG_FIELD(per_node))},
      {{"mad.timeout", "First attempt's timeout; each retry doubles it", "200ms"},
       config::duration(IBPULSE_CONFIG_FIELD(timeout))},
      {{"mad.retries", "Retries per MAD", "3"},
       config::number(0, 20, IBPULSE_CONFIG_FIELD(retries))},
  };
}

config::Keys<ExtSpeedsLayoutMode> ext_speeds_layout_keys() {
  return {{{"collect.ext-speeds-layout",
            "PortExtendedSpeedsCounters' layout: auto (per port, as perfquery decides: the "
            "RS-FEC layout where the PMA has RS-FEC counters and PortInfoExtended says RS-FEC is "
            "active), legacy or rsfec (every linked port, whatever its speed, asking nothing)",
            "auto"},
           config::choice<>(
               std::vector<std::pair<std::string, ExtSpeedsLayoutMode>>{
                   {"auto", ExtSpeedsLayoutMode::kAuto},
                   {"legacy", ExtSpeedsLayoutMode::kLegacy},
                   {"rsfec", ExtSpeedsLayoutMode::kRsFec}},
               [](ExtSpeedsLayoutMode & m) -> auto& { return m; })}};
}

Keys<PollerOptions> poller_keys() {
  Keys<PollerOptions> keys;
  config::nest(keys, fabric_keys(), IBPULSE_CONFIG_FIELD(discovery));
  append(keys, discovery_keys());
  config::nest(keys, mad_keys(), IBPULSE_CONFIG_FIELD(mad));
  append(keys, poll_keys());
  append(keys, sampling_keys());
  config::nest(keys, ext_speeds_layout_keys(), IBPULSE_CONFIG_FIELD(ext_speeds_layout));
  append(keys, shard_keys());
  return keys;
}

Keys<SmSubscriptionOptions> sm_subscription_keys() {
  return {
      {{"sm.traps",
        "InfiniBand traps to subscribe to at the subnet manager (InformInfo Sets to its SA): "
        "it forwards each such trap it receives, and ibpulse sends its IB-SMA-MIB notification "
        "(snmp.sma-notifications still chooses which go out); trap numbers (list; each item "
        "may name several, comma-separated), all or none (no subscription)",
        "all"},
       [](SmSubscriptionOptions& o, const ConfigNode& v) -> Status {
         std::set<uint16_t> traps;
         for (const ConfigNode* item : v.as_list()) {
           if (!item->is_scalar()) return Err("a list of SMA trap numbers");
           auto some = parse_sma_traps(item->text());
           if (!some) return Error{some.error()};
           traps.insert(some->begin(), some->end());
         }
         o.traps.assign(traps.begin(), traps.end());
         return Ok{};
       }},
      {{"sm.sa-key",
        "SM_Key sent with the subscription: the subnet manager accepts subscriptions to the "
        "security traps (256-259) only with its SA key (opensm's sa_key, 0x1 unless changed)",
        "0x1"},
       config::number(0, UINT64_MAX, IBPULSE_CONFIG_FIELD(sa_key))},
      {{"sm.subscription-refresh",
        "How often the subscription is sent again: a subnet manager that restarted, or took "
        "over as master, holds none (an SM LID change renews it at once)",
        "30s"},
       config::duration(IBPULSE_CONFIG_FIELD(refresh), 1s)},
      {{"sm.subscription-timeout", "How long an InformInfo Set waits for the SA's answer", "1s"},
       config::duration(IBPULSE_CONFIG_FIELD(timeout), 10ms)},
  };
}

}  // namespace ibpulse::collector
