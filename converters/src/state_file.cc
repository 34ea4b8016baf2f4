#include "ibpulse/converters/state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

namespace ibpulse::converters {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the state file is little-endian; a big-endian build needs byte swaps here");

constexpr char kMagic[8] = {'I', 'B', 'P', 'S', 'T', 'A', 'T', 'E'};
constexpr uint32_t kVersion = 1;

// Port flags.
constexpr uint8_t kIetfExtended = 1, kFlowControlCounted = 2, kOwnClearSinceExtended = 4;

// FNV-1a over the bytes: catches truncation and damage (not an adversary: the file is ours).
uint64_t checksum(const char* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<uint8_t>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

// The counter schema the file was written with: indexes are only meaningful with the same one.
uint64_t schema_fingerprint() {
  std::string names;
  for (const auto& c : schema::counter_table()) {
    names += c.name;
    names += std::to_string(c.label_value);
    names += '\n';
  }
  names += std::to_string(schema::extra_counter_count());
  return checksum(names.data(), names.size());
}

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }
  void put_counter(const CounterState& c) {
    put<uint64_t>(c.total);
    put<uint64_t>(c.last_raw);
    put<uint8_t>(static_cast<uint8_t>(c.source));
    put<uint8_t>(c.saturated ? 1 : 0);
  }
  std::string finish() {
    put<uint64_t>(checksum(out_.data(), out_.size()));
    return std::move(out_);
  }
  void reserve(size_t n) { out_.reserve(n); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  bool get(T& value) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool get_counter(CounterState& c) {
    uint8_t source = 0, saturated = 0;
    if (!get(c.total) || !get(c.last_raw) || !get(source) || !get(saturated)) return false;
    if (source > static_cast<uint8_t>(Source::kWide) || saturated > 1) return false;
    c.source = static_cast<Source>(source);
    c.saturated = saturated != 0;
    return true;
  }
  size_t offset() const { return at_; }

 private:
  const std::string& bytes_;
  size_t at_ = 0;
};

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
  if (h.version != kVersion) {
    return Err("state file version {} (this ibpulse reads version {})", h.version, kVersion);
  }
  if (!in.get(h.fingerprint) || !in.get(h.subnet_prefix) || !in.get(h.saved_unix_seconds) ||
      !in.get(h.ports) || !in.get(h.if_indexes)) {
    return Err("truncated header");
  }
  if (h.fingerprint != schema_fingerprint()) {
    return Err("written with another counter schema (another ibpulse version)");
  }
  return h;
}

bool read_port(Reader& in, SavedPort& out) {
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
  if (core_mask >> schema::kCoreCounterCount != 0) return false;
  for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
    if ((core_mask >> c & 1) != 0 && !in.get_counter(p.core[c])) return false;
  }
  if (extras == 0) return true;
  const size_t extra_count = schema::extra_counter_count();
  if (extras > extra_count) return false;
  p.extra = std::make_shared<std::vector<CounterState>>(extra_count);
  for (uint32_t i = 0; i < extras; ++i) {
    uint32_t index = 0;
    if (!in.get(index) || index >= extra_count || !in.get_counter((*p.extra)[index])) return false;
  }
  return true;
}

Result<std::vector<SavedPort>> read_ports(Reader& in, uint64_t count, size_t bytes) {
  // Each port takes at least 61 bytes: a count beyond what the file can hold is damage.
  if (count > bytes / 61) return Err("port count {} does not fit the file", count);
  std::vector<SavedPort> ports(count);
  for (auto& p : ports) {
    if (!read_port(in, p)) return Err("damaged port record at byte {}", in.offset());
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
    int64_t covered = 0, observed = 0;
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

Status check_fabric(const Header& h, const std::vector<SavedPort>& ports,
                    const collector::Topology& topology, size_t& in_topology) {
  if (h.subnet_prefix != topology.subnet_prefix) {
    return Err("from another fabric: subnet prefix {} (this fabric: {})",
               collector::guid_string(h.subnet_prefix),
               collector::guid_string(topology.subnet_prefix));
  }
  in_topology = 0;
  for (const auto& p : ports)
    in_topology += topology.find_port(p.key) != nullptr;
  // GUIDs are unique: the same fabric, even with half its switches down, shares most ports.
  if (!ports.empty() && in_topology * 10 < ports.size()) {
    return Err("from another fabric: only {} of its {} ports are in this fabric", in_topology,
               ports.size());
  }
  return Ok{};
}

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

std::string encode_state(const Converter& converter, uint64_t subnet_prefix) {
  Writer out;
  out.reserve(64 + converter.port_count() * 700);
  for (char c : kMagic)
    out.put(c);
  out.put<uint32_t>(kVersion);
  out.put<uint64_t>(schema_fingerprint());
  out.put<uint64_t>(subnet_prefix);
  out.put<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count());
  const auto if_indexes = converter.if_indexes().entries();
  out.put<uint64_t>(converter.port_count());
  out.put<uint64_t>(if_indexes.size());
  converter.for_each_port([&](collector::PortKey key, const Converter::PortState& p) {
    uint64_t core_mask = 0;
    for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
      if (p.core[c].source != Source::kNone) core_mask |= uint64_t{1} << c;
    }
    uint32_t extras = 0;
    if (p.extra) {
      for (const auto& e : *p.extra)
        extras += e.source != Source::kNone;
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
    for (uint32_t i = 0; p.extra && i < p.extra->size(); ++i) {
      if ((*p.extra)[i].source == Source::kNone) continue;
      out.put(i);
      out.put_counter((*p.extra)[i]);
    }
  });
  for (const auto& e : if_indexes) {
    out.put(e.key.node_guid);
    out.put(e.key.port);
    out.put(e.if_index);
  }
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
  auto ports = read_ports(in, header->ports, body);
  if (!ports) return Error{ports.error()};
  auto if_indexes = read_if_indexes(in, header->if_indexes, body);
  if (!if_indexes) return Error{if_indexes.error()};
  auto vl_traffic = read_vl_traffic(in, body);
  if (!vl_traffic) return Error{vl_traffic.error()};
  if (in.offset() != body) return Err("{} unexpected bytes after the records", body - in.offset());
  LoadedState loaded;
  if (auto s = check_fabric(*header, *ports, topology, loaded.ports_in_topology); !s) {
    return Error{s.error()};
  }
  for (auto& p : *ports)
    converter.restore_port(p.key, std::move(p.state));
  for (auto& [key, traffic] : *vl_traffic)
    converter.restore_vl_traffic(key, traffic);
  loaded.ports = ports->size();
  loaded.if_indexes = if_indexes->size();
  loaded.if_indexes_dropped = converter.if_indexes().restore(std::move(*if_indexes));
  loaded.saved_unix_seconds = header->saved_unix_seconds;
  return loaded;
}

Status write_file_atomically(const std::filesystem::path& path, const std::string& bytes) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Err("cannot create {}: {}", temporary.string(), errno_text());
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = errno_text();
      ::close(fd);
      ::unlink(temporary.c_str());
      return Err("cannot write {}: {}", temporary.string(), why);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(temporary.c_str());
    return Err("cannot flush {}: {}", temporary.string(), why);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temporary.c_str());
    return Err("cannot rename {} to {}: {}", temporary.string(), path.string(), why);
  }
  // The rename itself is durable only once the directory is.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

Result<FileContents> read_whole_file(const std::filesystem::path& path) {
  FileContents out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Err("cannot open {}: {}", path.string(), errno_text());
  out.bytes.assign(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) return Err("cannot read {}", path.string());
  out.found = true;
  return out;
}

Result<std::filesystem::path> set_aside(const std::filesystem::path& path) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::filesystem::path target = path.string() + ".rejected-" + std::to_string(now);
  std::error_code ec;
  std::filesystem::rename(path, target, ec);
  if (ec) return Err("cannot rename {} to {}: {}", path.string(), target.string(), ec.message());
  return target;
}

}  // namespace ibpulse::converters
