#pragma once
// Partition membership: each port's P_Key table (SMP attribute PKeyTable, 0x16), as its SMA
// answers it. A P_Key's low 15 bits name the partition; bit 15 says full (1) or limited (0)
// membership: two limited members of a partition cannot talk to each other. The poller reads
// the tables at each discovery (a few SMPs per port: 32 entries per SMP) and hands them to the
// converter, which publishes them with the snapshot.
//
// Thread safety: value types; a PartitionTables is immutable once published.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

inline constexpr uint16_t kPKeyTableAttribute = 0x0016;
inline constexpr unsigned kPKeysPerBlock = 32;
// Blocks read at most per port (1,024 entries). PartitionCap may claim up to 65,535 entries;
// devices have 16 to 128, and a table read past this is reported truncated.
inline constexpr unsigned kMaxPKeyBlocks = 32;

struct PKeyEntry {
  uint16_t index = 0;  // position in the port's table
  uint16_t pkey = 0;   // as the table holds it: membership bit and partition
  bool full_member() const { return (pkey & 0x8000) != 0; }
  uint16_t partition() const { return pkey & 0x7FFF; }
  friend bool operator==(const PKeyEntry&, const PKeyEntry&) = default;
};

struct PortPartitions {
  PortKey port;
  std::vector<PKeyEntry> entries;  // the valid ones (partition != 0), by index
  uint16_t capacity = 0;           // entries the port's table has
  bool truncated = false;          // capacity beyond kMaxPKeyBlocks blocks: the rest not read
  friend bool operator==(const PortPartitions&, const PortPartitions&) = default;
};

struct PartitionTables {
  std::vector<PortPartitions> ports;  // sorted by port
  const PortPartitions* find(PortKey key) const;
  // A copy with `updates` (sorted by port) replacing or adding their ports' tables.
  PartitionTables merged(std::span<const PortPartitions> updates) const;
};

// The partition names of an opensm partition configuration (opensm -P, partitions.conf):
// each `Name=PKey[,flags...] : members ;` names the P_Key's partition (its low 15 bits; a
// `Default` without a P_Key is 0x7fff). Members, flags and multicast groups are not read: the
// tables read from the ports say who is a member. A partition without a P_Key (opensm makes
// one up) cannot be named: `skipped` lists them. Errors name the file (`source`) and line.
struct PartitionsConf {
  PartitionNames names;
  std::vector<std::string> skipped;  // names of partitions without a P_Key
};
Result<PartitionsConf> parse_partitions_conf(std::string_view text, std::string_view source);
Result<PartitionsConf> load_partitions_conf(const std::filesystem::path& path);

// Entries in the P_Key table of port `port` of `node`: PartitionCap for a CA's or router's
// ports and a switch's port 0, PartitionEnforcementCap for a switch's data ports (0: the
// switch does not enforce partitions there, and the port has no table).
uint16_t pkey_capacity(const Node& node, uint8_t port);
// SMPs a table of `capacity` entries takes (at most kMaxPKeyBlocks).
unsigned pkey_blocks(uint16_t capacity);
// The attribute modifier of block `block`: a switch names the port in bits 16-23.
uint32_t pkey_modifier(NodeKind kind, uint8_t port, unsigned block);
// Appends block `block`'s valid entries (its 32 big-endian P_Keys, `data` 64 bytes) to `out`,
// those at or past `capacity` left out.
void decode_pkey_block(std::span<const uint8_t> data, unsigned block, uint16_t capacity,
                       std::vector<PKeyEntry>& out);

}  // namespace ibpulse::collector
