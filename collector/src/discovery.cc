#include "ibpulse/collector/discovery.h"

#include <fmt/format.h>
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "ibpulse/base/atomic_file.h"
#include "port_info.h"
#include "smp_fields.h"

namespace ibpulse::collector {
namespace {

struct FabricDeleter {
  void operator()(ibnd_fabric_t* f) const { ibnd_destroy_fabric(f); }
};

Node read_node(const ibnd_node_t& n, const NodeNameMap& names) {
  Node node;
  node.guid = n.guid;
  node.kind = static_cast<NodeKind>(n.type);
  node.description = std::string(n.nodedesc, strnlen(n.nodedesc, sizeof n.nodedesc));
  auto named = names.find(n.guid);
  node.name = named != names.end() ? named->second : node.description;
  node.num_ports = static_cast<uint8_t>(n.numports);
  node.system_image_guid = smp::field64(n.info, IB_NODE_SYSTEM_GUID_F);
  node.sma = sma_node_info(n.info);
  if (node.kind == NodeKind::kSwitch) {
    node.switch_info = sma_switch_info(n.switchinfo);
    if (n.ports != nullptr && n.ports[0] != nullptr) node.port0 = sma_port_info(n.ports[0]->info);
  }
  return node;
}

// A port's own identity and link, with the addressing (LID, LMC, CapabilityMask, subnet
// prefix) of the port that reaches its PMA: port 0 on a switch, the port itself on a CA.
Port read_port(uint64_t node_guid, uint8_t number, const ibnd_port_t& ip,
               const ibnd_port_t& addressing) {
  Port p;
  p.key = {node_guid, number};
  p.port_guid = ip.guid;
  p.link = link_state_from_port_info(ip.info);
  p.sma = sma_port_info(ip.info);
  p.lid = addressing.base_lid;
  p.lmc = addressing.lmc;
  p.capability_mask = smp::field(addressing.info, IB_PORT_CAPMASK_F);
  p.capability_mask2 = smp::u16(addressing.info, IB_PORT_CAPMASK2_F);
  p.subnet_prefix = smp::field64(addressing.info, IB_PORT_GID_PREFIX_F);
  return p;
}

// Every physical port, whether or not libibnetdisc reached it, and switch port 0 (the
// management port: no link of its own, never an interface) if asked.
void read_ports(const ibnd_node_t& n, Node& node, bool switch_port0, Topology& t) {
  const ibnd_port_t* port0 = node.kind == NodeKind::kSwitch ? n.ports[0] : nullptr;
  if (port0 != nullptr) node.lid = port0->base_lid;
  if (port0 != nullptr && switch_port0) t.ports.push_back(read_port(n.guid, 0, *port0, *port0));
  for (int i = 1; i <= n.numports; ++i) {
    Port p;
    p.key = {n.guid, static_cast<uint8_t>(i)};
    const ibnd_port_t* ip = n.ports[i];
    if (ip != nullptr) {
      p = read_port(n.guid, static_cast<uint8_t>(i), *ip, port0 != nullptr ? *port0 : *ip);
      if (ip->remoteport != nullptr && ip->remoteport->node != nullptr) {
        p.remote =
            PortKey{ip->remoteport->node->guid, static_cast<uint8_t>(ip->remoteport->portnum)};
      }
    }
    if (node.lid == 0 && p.lid != 0 && p.remote) node.lid = p.lid;
    t.ports.push_back(p);
  }
}

Topology read_fabric(const ibnd_fabric_t& fabric, const DiscoveryOptions& o) {
  Topology t;
  t.partition_names = o.partition_names;
  for (ibnd_node_t* n = fabric.nodes; n != nullptr; n = n->next) {
    Node node = read_node(*n, o.names);
    read_ports(*n, node, o.switch_port0, t);
    t.nodes.push_back(std::move(node));
  }
  std::sort(t.nodes.begin(), t.nodes.end(),
            [](const Node& a, const Node& b) { return a.guid < b.guid; });
  std::sort(t.ports.begin(), t.ports.end(),
            [](const Port& a, const Port& b) { return a.key < b.key; });
  for (const Port& p : t.ports) {
    if (p.subnet_prefix != 0) {
      t.subnet_prefix = p.subnet_prefix;
      break;
    }
  }
  return t;
}

using FabricPtr = std::unique_ptr<ibnd_fabric_t, FabricDeleter>;

Result<FabricPtr> discover_fabric(const DiscoveryOptions& o) {
  ibnd_config_t config{};
  config.max_smps = o.max_smps;
  config.timeout_ms = o.timeout_ms;
  config.retries = o.retries;
  if (o.m_key) config.mkey = *o.m_key;
  errno = 0;
  FabricPtr fabric(ibnd_discover_fabric(o.ca.empty() ? nullptr : const_cast<char*>(o.ca.c_str()),
                                        o.ca_port, nullptr, &config));
  if (!fabric) {
    return Err("fabric discovery through {} port {} failed{}{}",
               o.ca.empty() ? "the first HCA" : o.ca, o.ca_port, errno != 0 ? ": " : "",
               errno != 0 ? std::strerror(errno) : "");
  }
  return fabric;
}

// The cache when it is at most `max_age` old, else null and why not (empty: no cache asked
// for, or none there yet).
FabricPtr load_cache(const std::filesystem::path& file, std::chrono::seconds max_age,
                     std::chrono::seconds& age, std::string& why) {
  std::error_code ec;
  if (file.empty() || max_age.count() == 0) return nullptr;
  const auto written = std::filesystem::last_write_time(file, ec);
  if (ec) return nullptr;
  age = std::chrono::duration_cast<std::chrono::seconds>(
      std::filesystem::file_time_type::clock::now() - written);
  if (age > max_age || age < std::chrono::seconds(0)) return nullptr;
  FabricPtr fabric(ibnd_load_fabric(file.c_str(), 0));
  if (!fabric) why = fmt::format("cannot read {}", file.string());
  return fabric;
}

Topology read_cached(const ibnd_fabric_t& fabric, const DiscoveryOptions& o,
                     std::chrono::seconds age) {
  Topology t = read_fabric(fabric, o);
  t.from_cache = true;
  t.cache_age = age;
  return t;
}

// Written beside (named by the process: daemons of one host may share a state directory) and
// renamed over, flushed to disk first, so a crash or power loss never leaves half a cache.
std::string write_cache(ibnd_fabric_t* fabric, const std::filesystem::path& file) {
  std::filesystem::path tmp = file;
  tmp += fmt::format(".tmp{}", getpid());
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::filesystem::remove(tmp, ec);
  if (ibnd_cache_fabric(fabric, tmp.c_str(), IBND_CACHE_FABRIC_FLAG_DEFAULT) != 0)
    return fmt::format("cannot write {}", tmp.string());
  const Status replaced = replace_file_durably(tmp, file);
  return replaced ? std::string() : replaced.error();
}

}  // namespace

std::filesystem::path pending_cache_file(const std::filesystem::path& cache_file) {
  std::filesystem::path pending = cache_file;
  pending += ".pending";
  return pending;
}

Status commit_discovery_cache(const std::filesystem::path& cache_file) {
  const std::filesystem::path pending = pending_cache_file(cache_file);
  std::error_code ec;
  if (!std::filesystem::exists(pending, ec)) return Ok{};  // no discovery wrote one
  return replace_file_durably(pending, cache_file);
}

Result<Topology> load_cached_topology(const DiscoveryOptions& o, std::chrono::seconds max_age) {
  std::string why;
  std::chrono::seconds age{0};
  FabricPtr cached = load_cache(o.cache_file, max_age, age, why);
  if (!why.empty()) return Error{why};
  if (!cached) return Topology{};
  return read_cached(*cached, o, age);
}

Result<Topology> discover(const DiscoveryOptions& o) {
  std::string cache_error;
  std::chrono::seconds age{0};
  if (FabricPtr cached = load_cache(o.cache_file, o.cache_max_age, age, cache_error))
    return read_cached(*cached, o, age);
  auto fabric = discover_fabric(o);
  if (!fabric) return Error{fabric.error()};
  Topology t = read_fabric(**fabric, o);
  if (!o.cache_file.empty()) {
    const auto pending = pending_cache_file(o.cache_file);
    const std::string written = write_cache(fabric->get(), pending);
    if (!written.empty()) cache_error = written;
    // A discovery that lost SMPs can leave a port whose peer it never read, and libibnetdisc
    // then writes a cache it cannot load ("Cache invalid: cannot find port"; seen at 20% SMP
    // loss): such a cache must not replace a good one.
    std::error_code ec;
    if (written.empty() && !FabricPtr(ibnd_load_fabric(pending.c_str(), 0)))
      std::filesystem::remove(pending, ec);
  }
  t.cache_error = std::move(cache_error);
  return t;
}

}  // namespace ibpulse::collector
