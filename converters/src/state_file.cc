#include "ibpulse/converters/state_file.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "state_codec.h"
#include "state_counter_map.h"

namespace ibpulse::converters {
namespace {

using state_codec::checksum;
using state_codec::Reader;
using state_codec::Writer;

constexpr char kMagic[8] = {'I', 'B', 'P', 'S', 'T', 'A', 'T', 'E'};
// Version 1 carried a fingerprint of the counter schema and restored counters only under the
// same one; version 2 carries the counter table (state_counter_map.h) and restores by name.
constexpr uint32_t kVersion = 2, kFingerprintVersion = 1;

// Port flags.
constexpr uint8_t kIetfExtended = 1, kFlowControlCounted = 2, kOwnClearSinceExtended = 4;

struct Header {
  uint32_t version = 0;
  uint64_t fingerprint = 0, subnet_prefix = 0;
  int64_t saved_unix_seconds = 0;
  uint64_t ports = 0, if_indexes = 0;
};

struct SavedPort {
  collector::PortKey key;
  Converter::PortState state;
};

Result<Header> read_header(Reader& in) {
  char magic[sizeof kMagic];
  for (char& c : magic) {
    if (!in.get(c)) return Err("too short to be a state file");
  }
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) return Err("not an ibpulse state file");
  Header h;
  if (!in.get(h.version)) return Err("truncated header");
  if (h.version != kVersion && h.version != kFingerprintVersion) {
    return Err("state file version {} (this ibpulse reads versions {} and {})", h.version,
               kFingerprintVersion, kVersion);
  }
  if ((h.version == kFingerprintVersion && !in.get(h.fingerprint)) || !in.get(h.subnet_prefix) ||
      !in.get(h.saved_unix_seconds) || !in.get(h.ports) || !in.get(h.if_indexes)) {
    return Err("truncated header");
  }
  return h;
}

// Moves the bits of a mask over the file's core counters to this schema's core counters.
uint64_t map_core_mask(uint64_t file_mask, const CounterMap& map) {
  uint64_t out = 0;
  for (size_t c = 0; c < map.core.size(); ++c) {
    if ((file_mask >> c & 1) != 0 && map.core[c] != kCounterGone) out |= uint64_t{1} << map.core[c];
  }
  return out;
}

bool read_port(Reader& in, const CounterMap& map, SavedPort& out) {
  uint8_t flags = 0;
  uint64_t core_mask = 0;
  uint32_t extras = 0;
  auto& p = out.state;
  if (!in.get(out.key.node_guid) || !in.get(out.key.port) || !in.get(flags) ||
      !in.get(p.lossy_intervals) || !in.get(p.foreign_clears) || !in.get(p.own_clears) ||
      !in.get(p.source_switches) || !in.get(p.present) || !in.get(core_mask) || !in.get(extras)) {
    return false;
  }
  p.ietf_extended = (flags & kIetfExtended) != 0;
  p.flow_control_counted = (flags & kFlowControlCounted) != 0;
  p.own_clear_since_extended = (flags & kOwnClearSinceExtended) != 0;
  const size_t file_core = map.core.size();
  if (file_core < 64 && core_mask >> file_core != 0) return false;
  if ((file_core < 64 && p.present >> file_core != 0) || (p.present & ~core_mask) != 0) {
    return false;
  }
  p.present = map_core_mask(p.present, map);
  for (size_t c = 0; c < file_core; ++c) {
    if ((core_mask >> c & 1) == 0) continue;
    CounterState counter;
    if (!in.get_counter(counter)) return false;
    if (map.core[c] != kCounterGone) p.core.set(map.core[c], counter);
  }
  if (extras == 0) return true;
  if (extras > map.extra.size()) return false;
  p.extra = std::make_shared<ExtraCounters>();
  for (uint32_t i = 0; i < extras; ++i) {
    uint32_t index = 0;
    CounterState c;
    if (!in.get(index) || index >= map.extra.size() || !in.get_counter(c)) return false;
    if (c.last_raw > UINT32_MAX) return false;  // no extra counter is wider than 32 bits
    if (map.extra[index] == kCounterGone) continue;
    ExtraCounterState e;
    e.assign(c);
    p.extra->set(map.extra[index], e);
  }
  if (p.extra->counters() == 0) p.extra.reset();
  return true;
}

Result<std::vector<SavedPort>> read_ports(Reader& in, const CounterMap& map, uint64_t count,
                                          size_t bytes) {
  // Each port takes at least 62 bytes: a count beyond what the file can hold is damage.
  if (count > bytes / 62) return Err("port count {} does not fit the file", count);
  std::vector<SavedPort> ports;
  ports.reserve(std::min<uint64_t>(count, 1024));  // grows with what parses, not with the claim
  for (uint64_t i = 0; i < count; ++i) {
    if (!read_port(in, map, ports.emplace_back())) {
      return Err("damaged port record at byte {}", in.offset());
    }
  }
  return ports;
}

Result<std::vector<IfIndexTable::Entry>> read_if_indexes(Reader& in, uint64_t count, size_t bytes) {
  if (count > bytes / 13) return Err("ifIndex count {} does not fit the file", count);
  std::vector<IfIndexTable::Entry> out(count);
  for (auto& e : out) {
    if (!in.get(e.key.node_guid) || !in.get(e.key.port) || !in.get(e.if_index)) {
      return Err("damaged ifIndex record at byte {}", in.offset());
    }
  }
  return out;
}

void put_vl_traffic(Writer& out, collector::PortKey key, const PortVlTraffic& t) {
  out.put(key.node_guid);
  out.put(key.port);
  out.put(t.sampled);
  out.put(t.samples);
  out.put(t.saturated);
  out.put<int64_t>(t.covered.count());
  out.put<int64_t>(t.observed.count());
  for (const VlCounts& c : t.vl) {
    out.put(c.xmit_octets);
    out.put(c.rcv_octets);
    out.put(c.xmit_packets);
    out.put(c.rcv_packets);
  }
}

using SavedVlTraffic = std::vector<std::pair<collector::PortKey, PortVlTraffic>>;

Result<SavedVlTraffic> read_vl_traffic(Reader& in, size_t bytes) {
  uint64_t count = 0;
  if (!in.get(count)) return Err("truncated before the per-VL traffic records");
  constexpr size_t kRecord = 9 + 5 * 8 + kVirtualLanes * 4 * 8;
  if (count > bytes / kRecord) return Err("per-VL record count {} does not fit the file", count);
  SavedVlTraffic out(count);
  for (auto& [key, t] : out) {
    int64_t covered = 0;
    int64_t observed = 0;
    bool ok = in.get(key.node_guid) && in.get(key.port) && in.get(t.sampled) && in.get(t.samples) &&
              in.get(t.saturated) && in.get(covered) && in.get(observed);
    for (VlCounts& c : t.vl) {
      ok = ok && in.get(c.xmit_octets) && in.get(c.rcv_octets) && in.get(c.xmit_packets) &&
           in.get(c.rcv_packets);
    }
    if (!ok || covered < 0 || observed < 0) {
      return Err("damaged per-VL record at byte {}", in.offset());
    }
    t.covered = std::chrono::nanoseconds(covered);
    t.observed = std::chrono::nanoseconds(observed);
  }
  return out;
}

Status check_fabric(const Header& h, const std::vector<IfIndexTable::Entry>& saved,
                    const collector::Topology& topology) {
  // A daemon polling several subnets saves the first one's prefix; its first topology may hold
  // another subnet only (the first to finish discovering): any of its subnets' prefixes match,
  // and while one is not discovered yet (prefix 0) the shared ports below decide.
  const auto& subnets = topology.subnets;
  const auto has_prefix = [&](uint64_t prefix) {
    return std::any_of(subnets.begin(), subnets.end(),
                       [&](const collector::Topology::Subnet& s) { return s.prefix == prefix; });
  };
  const bool same_prefix = h.subnet_prefix == topology.subnet_prefix ||
                           has_prefix(h.subnet_prefix) || (subnets.size() > 1 && has_prefix(0));
  if (!same_prefix) {
    return Err("from another fabric: subnet prefix {} (this fabric: {})",
               collector::guid_string(h.subnet_prefix),
               collector::guid_string(topology.subnet_prefix));
  }
  // GUIDs are unique: a file from another fabric shares no port with this one. Any overlap is
  // this fabric, however much of it is down at the moment (a partial first discovery).
  const bool any = std::any_of(saved.begin(), saved.end(), [&](const IfIndexTable::Entry& e) {
    return topology.find_port(e.key) != nullptr;
  });
  if (!saved.empty() && !any) {
    return Err("from another fabric: none of its {} ports is in this fabric", saved.size());
  }
  return Ok{};
}

}  // namespace

std::string encode_state(const Converter& converter, uint64_t subnet_prefix) {
  Writer out;
  out.reserve(64 + converter.port_count() * 700);
  for (char c : kMagic)
    out.put(c);
  out.put<uint32_t>(kVersion);
  out.put<uint64_t>(subnet_prefix);
  out.put<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count());
  const auto if_indexes = converter.if_indexes().entries();
  out.put<uint64_t>(converter.port_count());
  out.put<uint64_t>(if_indexes.size());
  for (const auto& e : if_indexes) {
    out.put(e.key.node_guid);
    out.put(e.key.port);
    out.put(e.if_index);
  }
  put_counter_table(out);
  converter.for_each_port([&](collector::PortKey key, const Converter::PortState& p) {
    const uint64_t core_mask = p.core.sourced();
    uint32_t extras = 0;
    if (p.extra) {
      p.extra->for_each(
          [&](size_t, const ExtraCounterState& e) { extras += e.source != Source::kNone; });
    }
    out.put(key.node_guid);
    out.put(key.port);
    out.put<uint8_t>((p.ietf_extended ? kIetfExtended : 0) |
                     (p.flow_control_counted ? kFlowControlCounted : 0) |
                     (p.own_clear_since_extended ? kOwnClearSinceExtended : 0));
    out.put<uint64_t>(p.lossy_intervals);
    out.put<uint64_t>(p.foreign_clears);
    out.put<uint64_t>(p.own_clears);
    out.put<uint64_t>(p.source_switches);
    out.put<uint64_t>(p.present);
    out.put(core_mask);
    out.put(extras);
    for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
      if ((core_mask >> c & 1) != 0) out.put_counter(p.core[c]);
    }
    if (p.extra) {
      p.extra->for_each([&](size_t i, const ExtraCounterState& e) {
        if (e.source == Source::kNone) return;
        out.put(static_cast<uint32_t>(i));
        out.put_counter(e.widen());
      });
    }
  });
  out.put<uint64_t>(converter.vl_traffic().size());
  for (const auto& [key, traffic] : converter.vl_traffic())
    put_vl_traffic(out, key, *traffic);
  return out.finish();
}

Result<LoadedState> apply_state(const std::string& bytes, const collector::Topology& topology,
                                Converter& converter) {
  if (bytes.size() < sizeof(uint64_t)) return Err("too short to be a state file");
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  Reader in(bytes);
  auto header = read_header(in);  // before the checksum: a foreign file gets a clearer message
  if (!header) return Error{header.error()};
  if (stored != checksum(bytes.data(), body)) return Err("checksum mismatch: the file is damaged");
  auto if_indexes = read_if_indexes(in, header->if_indexes, body);
  if (!if_indexes) return Error{if_indexes.error()};
  if (auto s = check_fabric(*header, *if_indexes, topology); !s) return Error{s.error()};
  LoadedState loaded;
  loaded.saved_unix_seconds = header->saved_unix_seconds;
  loaded.if_indexes = if_indexes->size();
  CounterMap map;
  if (header->version == kFingerprintVersion) {
    if (header->fingerprint != counter_schema_fingerprint()) {
      // A version-1 file names no counter: they cannot be read back, but the interface
      // numbering does not depend on them and managers key their history by it.
      loaded.counters_refused = "written with another counter schema (another ibpulse version)";
      loaded.if_indexes_dropped = converter.if_indexes().restore(std::move(*if_indexes));
      return loaded;
    }
    map = CounterMap::identity();
  } else if (!read_counter_table(in, body, map)) {
    return Err("damaged counter table at byte {}", in.offset());
  }
  loaded.counters_unknown = map.unknown;
  auto ports = read_ports(in, map, header->ports, body);
  if (!ports) return Error{ports.error()};
  auto vl_traffic = read_vl_traffic(in, body);
  if (!vl_traffic) return Error{vl_traffic.error()};
  if (in.offset() != body) return Err("{} unexpected bytes after the records", body - in.offset());
  for (auto& p : *ports) {
    loaded.ports_in_topology += topology.find_port(p.key) != nullptr;
    converter.restore_port(p.key, std::move(p.state));
  }
  for (auto& [key, traffic] : *vl_traffic)
    converter.restore_vl_traffic(key, traffic);
  loaded.ports = ports->size();
  loaded.if_indexes_dropped = converter.if_indexes().restore(std::move(*if_indexes));
  return loaded;
}

}  // namespace ibpulse::converters
