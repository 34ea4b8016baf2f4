#include "ibpulse/sim/parts.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <numeric>

namespace ibpulse::sim {
namespace {

// Union-find over node indices: linear in links, fine for the 70,000-port fabrics ibsim runs.
class Components {
 public:
  explicit Components(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t find(size_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    // The smaller index becomes the root, so a part's root is its first node in the file.
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<size_t> parent_;
};

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

Result<uint64_t> parse_prefix(std::string_view text) {
  text = trim(text);
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const std::string_view digits = hex ? text.substr(2) : text;
  uint64_t value = 0;
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, hex ? 16 : 10);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return Err("bad subnet prefix '{}': give a 64-bit number such as 0xfe80000000000001", text);
  }
  return value;
}

}  // namespace

std::vector<std::vector<size_t>> connected_parts(const Topology& t) {
  Components c(t.nodes.size());
  std::vector<bool> linked(t.nodes.size(), false);
  for (const auto& l : t.links) {
    c.join(l.a.node, l.b.node);
    linked[l.a.node] = linked[l.b.node] = true;
  }
  std::vector<std::vector<size_t>> parts;
  std::vector<size_t> part_of_root(t.nodes.size(), std::numeric_limits<size_t>::max());
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (!linked[n]) continue;
    const size_t root = c.find(n);
    if (part_of_root[root] == std::numeric_limits<size_t>::max()) {
      part_of_root[root] = parts.size();
      parts.emplace_back();
    }
    parts[part_of_root[root]].push_back(n);
  }
  return parts;
}

size_t max_parts(bool resident_sm) {
  return resident_sm ? kIbsimMaxClients - 1 : std::numeric_limits<size_t>::max();
}

Result<std::vector<SubnetPart>> plan_parts(const Topology& t, const std::vector<uint64_t>& prefixes,
                                           bool resident_sm) {
  const auto components = connected_parts(t);
  if (components.empty()) return Err("the topology has no links: there is no subnet to start");
  if (components.size() > max_parts(resident_sm)) {
    return Err(
        "the topology has {} disconnected parts, and each part needs a resident subnet manager "
        "of its own: ibsim serves at most {} clients and one must stay free for tools, so at most "
        "{} parts fit (and at most {} when every part also runs a collector). Join parts with "
        "links, or use --no-sm",
        components.size(), kIbsimMaxClients, max_parts(true), kIbsimMaxClients / 2);
  }
  if (prefixes.size() > 1 && prefixes.size() != components.size()) {
    return Err("{} subnet prefixes given for {} parts: give one for every part, or one for all",
               prefixes.size(), components.size());
  }
  std::vector<size_t> links(components.size(), 0);
  std::vector<size_t> index(t.nodes.size(), 0);
  for (size_t p = 0; p < components.size(); ++p) {
    for (size_t n : components[p])
      index[n] = p;
  }
  for (const auto& l : t.links)
    ++links[index[l.a.node]];
  std::vector<SubnetPart> parts;
  for (size_t p = 0; p < components.size(); ++p) {
    SubnetPart part;
    part.attach_node = t.nodes[components[p].front()].id;
    part.nodes = components[p].size();
    part.links = links[p];
    if (!prefixes.empty()) part.subnet_prefix = prefixes[prefixes.size() == 1 ? 0 : p];
    parts.push_back(std::move(part));
  }
  return parts;
}

Result<std::vector<uint64_t>> parse_subnet_prefixes(std::string_view text) {
  std::vector<uint64_t> out;
  while (true) {
    const auto comma = text.find(',');
    auto prefix = parse_prefix(text.substr(0, comma));
    if (!prefix) return Error{prefix.error()};
    out.push_back(*prefix);
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

std::string prefix_text(uint64_t prefix) {
  return fmt::format("0x{:016x}", prefix);
}

std::optional<size_t> part_of(const Topology& t, std::string_view node) {
  const auto parts = connected_parts(t);
  for (size_t p = 0; p < parts.size(); ++p) {
    for (size_t n : parts[p]) {
      if (t.nodes[n].id == node) return p;
    }
  }
  return std::nullopt;
}

}  // namespace ibpulse::sim
