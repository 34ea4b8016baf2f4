#include "ibpulse/collector/local_split.h"

#include <algorithm>
#include <charconv>

#include "ibpulse/collector/shard.h"

namespace ibpulse::collector {
namespace {

Result<LocalPort> parse_one(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return Err("'{}' is not CA:PORT (e.g. mlx5_0:1)", text);
  }
  LocalPort out{std::string(text.substr(0, colon)), 0};
  const std::string_view number = text.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), out.port);
  // Port 0: a switch's management port (a collector running on a managed switch).
  if (ec != std::errc() || ptr != number.data() + number.size() || out.port < 0 || out.port > 254) {
    return Err("'{}': the port must be a number from 0 to 254", text);
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::vector<LocalPort>> parse_local_ports(const std::vector<std::string>& items) {
  std::vector<std::string_view> parts;
  for (const std::string& item : items) {
    std::string_view rest = item;
    while (true) {
      const auto comma = rest.find(',');
      parts.push_back(trim(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (parts.size() == 1 && parts[0] == "all") return std::vector<LocalPort>{};
  std::vector<LocalPort> out;
  for (std::string_view part : parts) {
    if (part.empty()) return Err("an empty entry: give CA:PORT,CA:PORT or all");
    if (part == "all") return Err("'all' stands alone: it takes every active local port");
    auto one = parse_one(part);
    if (!one) return Error{one.error()};
    if (std::find(out.begin(), out.end(), *one) != out.end())
      return Err("{}:{} is listed twice", one->ca, one->port);
    out.push_back(std::move(*one));
  }
  if (out.size() > LocalPortSplit::kMaxPorts)
    return Err("at most {} local ports, got {}", LocalPortSplit::kMaxPorts, out.size());
  return out;
}

LocalPortSplit::LocalPortSplit(size_t count)
    : count_(std::clamp<size_t>(count, 1, kMaxPorts)),
      up_mask_(static_cast<uint32_t>((uint32_t{1} << count_) - 1)) {}

bool LocalPortSplit::set_up(size_t index, bool up) {
  if (index >= count_) return false;
  const uint32_t bit = uint32_t{1} << index;
  const uint32_t before = up ? up_mask_.fetch_or(bit) : up_mask_.fetch_and(~bit);
  if (((before & bit) != 0) == up) return false;
  if (!up) failovers_.fetch_add(1);
  generation_.fetch_add(1);
  return true;
}

size_t LocalPortSplit::leader() const {
  const uint32_t mask = up_mask_.load();
  for (size_t i = 0; i < count_; ++i)
    if ((mask >> i & 1) != 0) return i;
  return 0;
}

size_t LocalPortSplit::owner(uint64_t node_guid) const {
  uint32_t mask = up_mask_.load();
  if (mask == 0) mask = static_cast<uint32_t>((uint32_t{1} << count_) - 1);
  size_t best = 0;
  uint64_t best_weight = 0;
  bool found = false;
  for (size_t i = 0; i < count_; ++i) {
    if ((mask >> i & 1) == 0) continue;
    const uint64_t w = shard_weight(node_guid, static_cast<unsigned>(i + 1));
    if (!found || w > best_weight) {  // ties: the lower index, as for shards
      best = i;
      best_weight = w;
      found = true;
    }
  }
  return best;
}

size_t keep_local_port_nodes(Topology& topology, const LocalPortSplit& split, size_t index) {
  std::erase_if(topology.ports,
                [&](const Port& p) { return split.owner(p.key.node_guid) != index; });
  size_t owned = 0;
  for (const Node& n : topology.nodes)
    owned += split.owner(n.guid) == index;
  return owned;
}

}  // namespace ibpulse::collector
