#include "ibpulse/sim/dump.h"

#include <charconv>
#include <iterator>
#include <sstream>

#include "ibpulse/base/lines.h"

namespace ibpulse::sim {
namespace {

std::optional<uint64_t> parse_number(std::string_view s, int base) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

struct NodeHeader {
  NodeType type;
  std::string id;
  uint64_t guid;
};

// `Switch 8 "Switch1"\tnodeguid 200000\tsysimgguid 200000`
std::optional<NodeHeader> parse_header(std::string_view line) {
  NodeType type;
  if (line.starts_with("Switch ")) {
    type = NodeType::kSwitch;
  } else if (line.starts_with("Ca ") || line.starts_with("Hca ")) {
    type = NodeType::kHca;
  } else {
    return std::nullopt;
  }
  const auto open = line.find('"');
  const auto close = line.find('"', open + 1);
  const auto guid_at = line.find("nodeguid ");
  if (open == std::string_view::npos || close == std::string_view::npos ||
      guid_at == std::string_view::npos) {
    return std::nullopt;
  }
  auto guid_text = line.substr(guid_at + 9);
  guid_text = guid_text.substr(0, guid_text.find_first_of(" \t"));
  auto guid = parse_number(guid_text, 16);
  if (!guid) return std::nullopt;
  return NodeHeader{type, std::string(line.substr(open + 1, close - open - 1)), *guid};
}

// `200000\t[1]\t"Hca1"[1]\t  4x  2.5G Active/LinkUp` or, for HCA ports and switch port 0,
// `100001\t[1]\t"Switch1"[1]\t lid 2 lmc 0 smlid 1  4x  2.5G Active/LinkUp`.
Result<DumpPort> parse_port(std::string_view line, const NodeHeader& node) {
  DumpPort p;
  p.node = node.id;
  p.type = node.type;
  p.node_guid = node.guid;
  const auto bad = [&] { return Err("cannot read Dump line `{}`", line); };
  const auto tab = line.find('\t');
  const auto open = line.find('[');
  const auto close = line.find(']');
  if (tab == std::string_view::npos || open == std::string_view::npos || close < open) return bad();
  auto guid = parse_number(line.substr(0, tab), 16);
  auto port = parse_number(line.substr(open + 1, close - open - 1), 10);
  if (!guid || !port) return bad();
  p.port_guid = *guid;
  p.port = static_cast<unsigned>(*port);
  std::string_view rest = line.substr(close + 1);
  if (const auto q = rest.find('"'); q != std::string_view::npos) {
    const auto q2 = rest.find('"', q + 1);
    const auto rb = rest.find(']', q2);
    if (q2 == std::string_view::npos || rb == std::string_view::npos) return bad();
    p.remote_node = std::string(rest.substr(q + 1, q2 - q - 1));
    auto rport = parse_number(rest.substr(q2 + 2, rb - q2 - 2), 10);
    if (!rport) return bad();
    p.remote_port = static_cast<unsigned>(*rport);
    rest = rest.substr(rb + 1);
  }
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  std::istringstream tokens{std::string(rest)};
  std::vector<std::string> words{std::istream_iterator<std::string>(tokens), {}};
  size_t i = 0;
  if (words.size() >= 6 && words[0] == "lid") {
    auto lid = parse_number(words[1], 10);
    if (!lid) return bad();
    p.lid = static_cast<unsigned>(*lid);
    i = 6;  // lid N lmc N smlid N
  }
  if (words.size() != i + 3) return bad();
  p.width = words[i];
  p.speed = words[i + 1];
  const auto slash = words[i + 2].find('/');
  p.state = words[i + 2].substr(0, slash);
  p.phys_state = slash == std::string::npos ? "" : words[i + 2].substr(slash + 1);
  return p;
}

}  // namespace

Result<std::vector<DumpPort>> parse_dump(std::string_view dump) {
  std::vector<DumpPort> ports;
  std::optional<NodeHeader> node;
  unsigned switch_lid = 0;
  while (!dump.empty()) {
    const std::string_view line = take_line(dump);
    if (line.empty() || line.front() == '#') continue;
    if (auto header = parse_header(line)) {
      node = std::move(header);
      switch_lid = 0;
      continue;
    }
    if (!node) continue;
    auto port = parse_port(line, *node);
    if (!port) return Error{port.error()};
    if (port->type == NodeType::kSwitch) {
      if (port->port == 0) {
        switch_lid = port->lid;
        continue;
      }
      port->lid = switch_lid;
      if (port->remote_node == "Sma Port") port->remote_node.clear();
    }
    ports.push_back(std::move(*port));
  }
  if (ports.empty()) return Err("the Dump listed no ports");
  return ports;
}

const DumpPort* find_port(const std::vector<DumpPort>& ports, std::string_view node,
                          unsigned port) {
  for (const auto& p : ports) {
    if (p.node == node && p.port == port) return &p;
  }
  return nullptr;
}

}  // namespace ibpulse::sim
