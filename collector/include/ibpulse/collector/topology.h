#pragma once
// The fabric as discovery sees it. Ports are keyed by (node GUID, port number), never by LID:
// LIDs change when the subnet manager says so.
//
// Thread safety: value types; a Topology is immutable once built and may be shared.

#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/collector/sma_info.h"

namespace ibpulse::collector {

enum class NodeKind : uint8_t { kCa = 1, kSwitch = 2, kRouter = 3 };
std::string_view to_string(NodeKind kind);

struct PortKey {
  uint64_t node_guid = 0;
  uint8_t port = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): false positive on a defaulted <=> (llvm issue 53961)
  friend auto operator<=>(const PortKey&, const PortKey&) = default;
};

// For hash maps keyed by port.
struct PortKeyHash {
  size_t operator()(PortKey k) const noexcept {
    const uint64_t h = (k.node_guid ^ k.port) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// PortInfo values, in their raw IBA encodings (each field's values beside it).
struct LinkState {
  uint8_t state = 0;       // 1 Down, 2 Init, 3 Armed, 4 Active (0: never read)
  uint8_t phys_state = 0;  // 1 Sleep, 2 Polling, 3 Disabled, 4 Training, 5 LinkUp, ...
  uint8_t width_active = 0, width_supported = 0, width_enabled = 0;  // 1=1X 2=4X 4=8X 8=12X 16=2X
  uint8_t speed_active = 0, speed_supported = 0, speed_enabled = 0;  // 1 SDR 2 DDR 4 QDR
  uint8_t speed_ext_active = 0, speed_ext_supported = 0, speed_ext_enabled = 0;  // 1 FDR 2 EDR ...
  uint8_t mtu = 0;  // NeighborMTU: 1=256 ... 5=4096
  friend bool operator==(const LinkState&, const LinkState&) = default;
};

struct Port {
  PortKey key;
  uint64_t port_guid = 0;
  uint16_t lid = 0;  // the LID that reaches this port's PMA (a switch: its port-0 LID)
  uint8_t lmc = 0;
  std::optional<PortKey> remote;
  LinkState link;
  uint32_t capability_mask = 0;  // PortInfo CapabilityMask (port 0's on a switch)
  // PortInfo CapabilityMask2, from the same PortInfo: valid where capability_mask has 0x8000
  // (IsCapabilityMask2Supported). 0x0002: PortInfoExtended (SMP 0x33) is supported.
  uint16_t capability_mask2 = 0;
  uint64_t subnet_prefix = 0;
  // Which of the daemon's subnets discovered the port (Topology::subnets; 0 with one subnet).
  uint8_t subnet = 0;
  // The port's own PortInfo as its SMA reported it at the last discovery (IB-SMA-MIB's
  // port objects). On a switch's data port the LID, M_Key and SM fields are not the port's:
  // Node::port0 has the switch's.
  SmaPortInfo sma;

  bool active() const { return link.state == 4; }
  bool down() const { return link.state == 1; }  // read Down (0, never read, is not)
};

struct Node {
  uint64_t guid = 0;
  NodeKind kind = NodeKind::kCa;
  std::string description;  // NodeDescription as the node reports it
  std::string name;         // from the node-name map, else the description
  uint8_t num_ports = 0;
  uint64_t system_image_guid = 0;
  uint16_t lid = 0;  // switch: port-0 LID; CA: LID of its first connected port
  SmaNodeInfo sma;   // NodeInfo beyond the above
  // A switch's SwitchInfo and the PortInfo of its management port 0 (absent on CAs and
  // routers, and when discovery could not read them).
  std::optional<SmaSwitchInfo> switch_info;
  std::optional<SmaPortInfo> port0;
};

// Partition names by partition (a P_Key's low 15 bits), from the subnet manager's partition
// configuration (partitions.h reads opensm's).
using PartitionNames = std::map<uint16_t, std::string>;

struct Topology {
  std::vector<Node> nodes;         // sorted by GUID
  PartitionNames partition_names;  // fabric.partitions-file: none when not given
  // Sorted by key: every physical port. Switch port 0 only when discovery was asked for it
  // (DiscoveryOptions::switch_port0): it is read but is never an interface.
  std::vector<Port> ports;
  // A shard's topology (collector/shard.h) keeps in `ports` only the ports of the nodes it
  // polls, and here, sorted by key, the other shards' ports linked to them: their PortInfo as
  // discovery saw it, so that both ends of every link of this shard can still be compared.
  // Nodes stay all in `nodes` (peers keep their names).
  std::vector<Port> peer_ports;
  uint64_t subnet_prefix = 0;
  // The subnets the ports come from, by Port::subnet (subnets.h): a daemon polling several
  // fabrics names each by the local port that reaches it. Empty before the daemon names them.
  struct Subnet {
    uint64_t prefix = 0;
    std::string local_port;  // "mlx5_0:1"
  };
  std::vector<Subnet> subnets;
  // Read from a discovery cache (discovery.h) rather than discovered, and how old the cache
  // was; why the cache could not be read or written, when it could not (the discovery went on).
  bool from_cache = false;
  std::chrono::seconds cache_age{0};
  std::string cache_error;

  // The subnet a port came from (null when the daemon has not named its subnets), and the
  // port's subnet prefix: its PortInfo GID prefix, or its subnet's when the port has no link
  // (PortInfo reports 0 then).
  const Subnet* subnet_of(const Port& port) const;
  uint64_t subnet_prefix_of(const Port& port) const;
  // A node's subnet prefix: that of its first port that knows one, else the topology's.
  uint64_t node_subnet_prefix(uint64_t guid) const;

  const Node* find_node(uint64_t guid) const;
  const Port* find_port(PortKey key) const;
  // A port of this topology or, failing that, one of the peer_ports.
  const Port* find_port_or_peer(PortKey key) const;
  size_t switch_count() const;
};

// What changed between two discoveries.
struct TopologyChanges {
  std::vector<uint64_t> nodes_added, nodes_removed;
  std::vector<PortKey> links_up, links_down;  // a port gained or lost its peer
  struct LidChange {
    PortKey port;
    uint16_t before = 0, after = 0;
  };
  std::vector<LidChange> lid_changes;
  bool empty() const;
};
TopologyChanges diff(const Topology& before, const Topology& after);

// PortInfo LinkWidth bits (1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X) in lanes; 0 when unknown.
unsigned width_lanes(uint8_t width);

// Human names of PortInfo encodings: "4X", "EDR", "Active", "LinkUp"; "?" when unknown.
std::string_view width_name(uint8_t width);
std::string_view speed_name(const LinkState& link);  // extended speeds win when set
std::string_view state_name(uint8_t state);
std::string_view phys_state_name(uint8_t phys_state);

// "0x" + 16 lower-case hex digits, the form every output uses.
std::string guid_string(uint64_t guid);

}  // namespace ibpulse::collector
