#include "ibpulse/exporters/remote_write/snapshot_samples.h"

#include <charconv>
#include <optional>

namespace ibpulse::exporters::remote_write {
namespace {

// The family a `# TYPE name type` line declares and whether it is a counter; nullopt for any
// other line.
struct TypeLine {
  std::string_view name;
  bool counter;
};
std::optional<TypeLine> type_line(std::string_view line) {
  if (!line.starts_with("# TYPE ")) return std::nullopt;
  const auto rest = line.substr(7);
  return TypeLine{rest.substr(0, rest.find(' ')), rest.ends_with(" counter")};
}

// A port's key from its escaped label values (node_guid="0x...", port="N").
std::optional<collector::PortKey> port_of(std::string_view labels) {
  const auto guid = label_value(labels, "node_guid");
  const auto port = label_value(labels, "port");
  if (!guid || !port || !guid->starts_with("0x")) return std::nullopt;
  uint64_t g = 0;
  unsigned p = 0;
  auto [gp, ge] = std::from_chars(guid->data() + 2, guid->data() + guid->size(), g, 16);
  auto [pp, pe] = std::from_chars(port->data(), port->data() + port->size(), p);
  if (ge != std::errc() || pe != std::errc() || p > 255) return std::nullopt;
  return collector::PortKey{g, static_cast<uint8_t>(p)};
}

// Reads the text line by line: keeps each family's TYPE and caches the last port looked up
// (the renderer writes a family's ports in order, so lookups are rare).
struct LineReader {
  const converters::FabricSnapshot& snapshot;
  const MetricSelection& selection;
  std::chrono::milliseconds offset;
  const SnapshotSamples::Each& each;
  int64_t publish_ms;
  bool counter_family = false;
  bool selected = false;
  std::optional<collector::PortKey> cached_port;
  int64_t cached_ms = 0;

  size_t cursor = 0;  // where the last port was found in snapshot.ports

  // Each family lists the ports in snapshot order: the next port is usually the next entry.
  const converters::PortSnapshot* find(collector::PortKey key) {
    const auto& ports = snapshot.ports;
    for (size_t i = cursor; i < ports.size() && i < cursor + 2; ++i) {
      if (ports[i].key == key) {
        cursor = i;
        return &ports[i];
      }
    }
    const auto* p = snapshot.find(key);
    if (p != nullptr) cursor = static_cast<size_t>(p - ports.data());
    return p;
  }

  int64_t port_time(std::string_view labels) {
    const auto key = port_of(labels);
    if (!key) return publish_ms;
    if (!cached_port || !(*cached_port == *key)) {
      cached_port = key;
      const auto* p = find(*key);
      const bool read = p != nullptr && p->last_read != converters::Clock::time_point{};
      cached_ms = read ? unix_ms(p->last_read, offset) : publish_ms;
    }
    return cached_ms;
  }

  void header(std::string_view line) {
    const auto type = type_line(line);
    if (!type) return;
    counter_family = type->counter;
    selected = selection.selects(type->name);
  }

  void line(std::string_view text) {
    if (text.starts_with('#')) return header(text);
    if (!selected) return;
    const auto parsed = parse_line(text);
    if (!parsed) return;
    const int64_t ts = counter_family ? port_time(parsed->labels) : publish_ms;
    each(*parsed, series_hash(parsed->series), ts);
  }
};

}  // namespace

std::chrono::milliseconds clock_offset() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()) -
         duration_cast<milliseconds>(steady_clock::now().time_since_epoch());
}

std::chrono::milliseconds StableClockOffset::update(std::chrono::milliseconds fresh,
                                                    bool* stepped) {
  const auto now = current();
  const bool moved = std::chrono::abs(fresh - now) > std::chrono::seconds(1);
  if (stepped != nullptr) *stepped = moved;
  if (!moved) return now;
  offset_ms_.store(fresh.count(), std::memory_order_relaxed);
  return fresh;
}

int64_t unix_ms(converters::Clock::time_point t, std::chrono::milliseconds offset) {
  using namespace std::chrono;
  return (duration_cast<milliseconds>(t.time_since_epoch()) + offset).count();
}

void SnapshotSamples::read(const converters::FabricSnapshot& snapshot,
                           std::chrono::milliseconds offset, std::string& scratch,
                           const Each& each) const {
  LineReader reader{snapshot, selection_, offset, each, unix_ms(snapshot.published, offset),
                    false,    false,      {},     0,    0};
  // Chunks end at line ends (the renderer hands over whole lines).
  renderer_.render(
      snapshot, scratch,
      [&reader](std::string_view chunk) {
        while (!chunk.empty()) {
          const size_t end = chunk.find('\n');
          reader.line(chunk.substr(0, end));
          if (end == std::string_view::npos) break;
          chunk.remove_prefix(end + 1);
        }
      },
      1 << 16);
}

void SnapshotSamples::read_health(const alerts::HealthSnapshot& health, int64_t timestamp_ms,
                                  std::string& scratch, const Each& each) const {
  std::string text;
  renderer_.render_health(health, scratch, [&text](std::string_view chunk) { text.append(chunk); });
  read_text(text, timestamp_ms, each);
}

void SnapshotSamples::read_text(std::string_view text, int64_t timestamp_ms,
                                const Each& each) const {
  bool selected = false;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (const auto type = type_line(line)) {
      selected = selection_.selects(type->name);
    } else if (selected) {
      if (const auto parsed = parse_line(line))
        each(*parsed, series_hash(parsed->series), timestamp_ms);
    }
  }
}

}  // namespace ibpulse::exporters::remote_write
