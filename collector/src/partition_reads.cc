#include "partition_reads.h"

#include <algorithm>
#include <utility>

namespace ibpulse::collector {

void PartitionReads::queue(const Target& t) {
  if (t.lid == 0 || t.capacity == 0 || reading_.contains(t.port)) return;
  if (!queued_.insert(t.port).second) return;
  queue_.push_back(t);
}

void PartitionReads::plan(const Topology& topology) {
  for (const Port& p : topology.ports) {
    const Node* node = topology.find_node(p.key.node_guid);
    if (node == nullptr || p.key.port == 0) continue;
    // A switch's port 0 first: it has its LID whether or not discovery was asked for it.
    if (node->kind == NodeKind::kSwitch && p.key.port == 1)
      queue({{node->guid, 0}, p.lid, node->kind, pkey_capacity(*node, 0)});
    if (!p.remote) continue;  // no link: nothing reaches the table, nor uses it
    queue({p.key, p.lid, node->kind, pkey_capacity(*node, p.key.port)});
  }
}

std::optional<PartitionReads::Ask> PartitionReads::next() {
  for (auto& [port, r] : reading_) {
    if (r.sent < r.blocks && !r.failed) {
      const unsigned block = r.sent++;
      return Ask{port, r.target.lid, pkey_modifier(r.target.kind, port.port, block), block};
    }
  }
  if (reading_.size() >= kPortsInFlight || queue_.empty()) return std::nullopt;
  const Target t = queue_.front();
  queue_.pop_front();
  queued_.erase(t.port);
  Reading& r = reading_[t.port];
  r.target = t;
  r.blocks = pkey_blocks(t.capacity);
  r.table.port = t.port;
  r.table.capacity = t.capacity;
  r.table.truncated = t.capacity > kMaxPKeyBlocks * kPKeysPerBlock;
  r.sent = 1;
  return Ask{t.port, t.lid, pkey_modifier(t.kind, t.port.port, 0), 0};
}

void PartitionReads::answered(PortKey port, unsigned block, std::span<const uint8_t> data) {
  const auto it = reading_.find(port);
  if (it == reading_.end()) return;
  ++answers_;
  Reading& r = it->second;
  if (!r.failed) decode_pkey_block(data, block, r.target.capacity, r.table.entries);
  ++r.done;
  finish_if_done(it);
}

void PartitionReads::failed(PortKey port) {
  const auto it = reading_.find(port);
  if (it == reading_.end()) return;
  ++failures_;
  it->second.failed = true;  // no more of its blocks go out; those out still come back
  ++it->second.done;
  finish_if_done(it);
}

void PartitionReads::finish_if_done(std::map<PortKey, Reading>::iterator it) {
  Reading& r = it->second;
  if (r.done < r.sent || (!r.failed && r.sent < r.blocks)) return;
  if (!r.failed) {
    std::sort(r.table.entries.begin(), r.table.entries.end(),
              [](const PKeyEntry& a, const PKeyEntry& b) { return a.index < b.index; });
    finished_.push_back(std::move(r.table));
  }
  reading_.erase(it);
}

std::vector<PortPartitions> PartitionReads::take_finished() {
  std::sort(finished_.begin(), finished_.end(),
            [](const PortPartitions& a, const PortPartitions& b) { return a.port < b.port; });
  return std::exchange(finished_, {});
}

}  // namespace ibpulse::collector
