// Reader for ibsim net files and ibnetdiscover output (the formats ibsim accepts).
#include <charconv>
#include <map>
#include <optional>

#include "ibpulse/base/lines.h"
#include "ibpulse/sim/topology.h"

namespace ibpulse::sim {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::optional<unsigned> parse_uint(std::string_view s) {
  unsigned v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 0 == s.find("0x") ? 16 : 10);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// `"name"` at the start of s; advances s past it.
std::optional<std::string> take_quoted(std::string_view& s) {
  s = trim(s);
  if (s.empty() || s.front() != '"') return std::nullopt;
  const auto close = s.find('"', 1);
  if (close == std::string_view::npos) return std::nullopt;
  std::string name(s.substr(1, close - 1));
  s.remove_prefix(close + 1);
  return name;
}

// `[n]` at the start of s; advances s past it.
std::optional<unsigned> take_bracketed(std::string_view& s) {
  s = trim(s);
  if (s.empty() || s.front() != '[') return std::nullopt;
  const auto close = s.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  auto v = parse_uint(s.substr(1, close - 1));
  s.remove_prefix(close + 1);
  return v;
}

struct PendingLink {
  size_t line = 0;
  std::string local;
  unsigned local_port = 0;
  std::string remote;
  unsigned remote_port = 0;
};

struct Parser {
  Topology topo;
  std::map<std::string, size_t, std::less<>> index;
  std::vector<PendingLink> pending;
  std::optional<size_t> current;

  Status header(std::string_view line, size_t n) {
    const auto space = line.find_first_of(" \t");
    const std::string_view kind = line.substr(0, space);
    std::string_view rest = line.substr(space == std::string_view::npos ? line.size() : space);
    rest = trim(rest);
    const auto num_end = rest.find_first_of(" \t");
    auto ports = parse_uint(rest.substr(0, num_end));
    rest.remove_prefix(num_end == std::string_view::npos ? rest.size() : num_end);
    auto id = take_quoted(rest);
    if (!ports || !id) return Err("line {}: expected `{} <ports> \"<id>\"`", n, kind);
    if (index.contains(*id)) return Err("line {}: node \"{}\" is defined twice", n, *id);
    const NodeType type = kind == "Switch" ? NodeType::kSwitch : NodeType::kHca;
    topo.nodes.push_back(TopoNode{type, *id, *ports});
    current = topo.nodes.size() - 1;
    index.emplace(*id, *current);
    return Ok{};
  }

  Status port_line(std::string_view line, size_t n) {
    if (!current) return Err("line {}: port line before any node header", n);
    auto local_port = take_bracketed(line);
    // ibnetdiscover adds the port GUID in parentheses: `[1](10000a) "S-..."[2]`.
    if (line.starts_with("(")) line.remove_prefix(std::min(line.find(')') + 1, line.size()));
    auto remote = take_quoted(line);
    auto remote_port = take_bracketed(line);
    if (!local_port || !remote || !remote_port) {
      return Err("line {}: expected `[port] \"remote\"[port]`", n);
    }
    pending.push_back({n, topo.nodes[*current].id, *local_port, *remote, *remote_port});
    return Ok{};
  }

  Status resolve() {
    std::map<std::pair<size_t, unsigned>, Endpoint> peer;
    for (const auto& p : pending) {
      auto r = index.find(p.remote);
      if (r == index.end()) return Err("line {}: unknown node \"{}\"", p.line, p.remote);
      const size_t l = index.find(p.local)->second;
      for (auto [node, port] : {std::pair{l, p.local_port}, std::pair{r->second, p.remote_port}}) {
        if (port == 0 || port > topo.nodes[node].ports) {
          return Err("line {}: node \"{}\" has no port {}", p.line, topo.nodes[node].id, port);
        }
      }
      const Endpoint remote{r->second, p.remote_port};
      auto [it, inserted] = peer.emplace(std::pair{l, p.local_port}, remote);
      if (!inserted && !(it->second == remote)) {
        return Err("line {}: \"{}\"[{}] is connected twice", p.line, p.local, p.local_port);
      }
    }
    for (const auto& [local, remote] : peer) {
      auto back = peer.find({remote.node, remote.port});
      if (back == peer.end() || back->second.node != local.first ||
          back->second.port != local.second) {
        return Err("link \"{}\"[{}] -> \"{}\"[{}] is not listed at the other end",
                   topo.nodes[local.first].id, local.second, topo.nodes[remote.node].id,
                   remote.port);
      }
      if (std::pair{local.first, local.second} < std::pair{remote.node, remote.port}) {
        topo.links.push_back(TopoLink{{local.first, local.second}, remote});
      }
    }
    return Ok{};
  }
};

}  // namespace

Result<Topology> parse_net(std::string_view text) {
  Parser p;
  size_t n = 0;
  while (!text.empty()) {
    std::string_view line = take_line(text);
    ++n;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) {
      p.current.reset();
      continue;
    }
    Status s = Ok{};
    if (line.starts_with("Switch") || line.starts_with("Hca") || line.starts_with("Ca")) {
      s = p.header(line, n);
    } else if (line.front() == '[') {
      s = p.port_line(line, n);
    }  // other lines (vendid=, switchguid=, ...) carry nothing ibsim needs from us
    if (!s) return Error{s.error()};
  }
  if (p.topo.nodes.empty()) return Err("no nodes found");
  if (auto s = p.resolve(); !s) return Error{s.error()};
  if (auto s = check_capacity(p.topo); !s) return Error{s.error()};
  return std::move(p.topo);
}

}  // namespace ibpulse::sim
