#include <charconv>
#include <fstream>

#include "ibpulse/base/lines.h"
#include "ibpulse/collector/discovery.h"

namespace ibpulse::collector {

Result<NodeNameMap> parse_node_name_map(std::string_view text, std::string_view source) {
  NodeNameMap names;
  size_t line_no = 0;
  while (!text.empty()) {
    std::string_view line = take_line(text);
    ++line_no;
    const auto start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos || line[start] == '#') continue;
    line.remove_prefix(start);
    const auto bad = [&](std::string_view why) {
      return Err("{}:{}: {} (expected `0x<GUID> \"name\"`)", source, line_no, why);
    };
    const auto space = line.find_first_of(" \t");
    std::string_view guid_text = line.substr(0, space);
    if (guid_text.starts_with("0x") || guid_text.starts_with("0X")) guid_text.remove_prefix(2);
    uint64_t guid = 0;
    auto [ptr, ec] =
        std::from_chars(guid_text.data(), guid_text.data() + guid_text.size(), guid, 16);
    if (ec != std::errc() || ptr != guid_text.data() + guid_text.size() || guid_text.empty()) {
      return bad("bad GUID");
    }
    if (space == std::string_view::npos) return bad("no name");
    std::string_view rest = line.substr(space);
    const auto open = rest.find('"');
    const auto close = rest.rfind('"');
    if (open == std::string_view::npos || close == open) return bad("name must be quoted");
    names[guid] = std::string(rest.substr(open + 1, close - open - 1));
  }
  return names;
}

Result<NodeNameMap> load_node_name_map(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return Err("cannot read node-name map {}", path.string());
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  return parse_node_name_map(text, path.string());
}

}  // namespace ibpulse::collector
