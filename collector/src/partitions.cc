#include "ibpulse/collector/partitions.h"

#include <algorithm>

namespace ibpulse::collector {

const PortPartitions* PartitionTables::find(PortKey key) const {
  const auto it = std::lower_bound(ports.begin(), ports.end(), key,
                                   [](const PortPartitions& p, PortKey k) { return p.port < k; });
  return it != ports.end() && it->port == key ? &*it : nullptr;
}

PartitionTables PartitionTables::merged(std::span<const PortPartitions> updates) const {
  PartitionTables out;
  out.ports.reserve(ports.size() + updates.size());
  auto old = ports.begin();
  for (const PortPartitions& u : updates) {
    while (old != ports.end() && old->port < u.port)
      out.ports.push_back(*old++);
    if (old != ports.end() && old->port == u.port) ++old;  // replaced
    if (!out.ports.empty() && out.ports.back().port == u.port) {
      out.ports.back() = u;  // the batch's later read of the same port wins
    } else {
      out.ports.push_back(u);
    }
  }
  out.ports.insert(out.ports.end(), old, ports.end());
  return out;
}

uint16_t pkey_capacity(const Node& node, uint8_t port) {
  if (node.kind == NodeKind::kSwitch && port != 0)
    return node.switch_info ? node.switch_info->partition_enforcement_cap : 0;
  return node.sma.partition_cap;
}

unsigned pkey_blocks(uint16_t capacity) {
  return std::min<unsigned>((capacity + kPKeysPerBlock - 1) / kPKeysPerBlock, kMaxPKeyBlocks);
}

uint32_t pkey_modifier(NodeKind kind, uint8_t port, unsigned block) {
  const uint32_t port_bits = kind == NodeKind::kSwitch ? uint32_t{port} << 16 : 0;
  return port_bits | (block & 0xFFFF);
}

void decode_pkey_block(std::span<const uint8_t> data, unsigned block, uint16_t capacity,
                       std::vector<PKeyEntry>& out) {
  for (size_t i = 0; i < kPKeysPerBlock && 2 * i + 1 < data.size(); ++i) {
    const size_t index = size_t{block} * kPKeysPerBlock + i;
    if (index >= capacity) break;
    const auto pkey = static_cast<uint16_t>(data[2 * i] << 8 | data[2 * i + 1]);
    if ((pkey & 0x7FFF) == 0) continue;  // 0x0000 and 0x8000: no partition (an empty entry)
    out.push_back({static_cast<uint16_t>(index), pkey});
  }
}

}  // namespace ibpulse::collector
