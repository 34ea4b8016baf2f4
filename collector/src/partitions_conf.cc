// opensm's partition configuration, read for the partitions' names (partitions.h).
#include <fstream>
#include <iterator>

#include "ibpulse/base/lines.h"
#include "ibpulse/base/number.h"
#include "ibpulse/collector/partitions.h"

namespace ibpulse::collector {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

struct Entry {
  std::string text;
  size_t line = 0;  // where it starts
};

// The `;`-terminated entries of `text`, comments (`#` to the end of the line) dropped.
std::vector<Entry> entries_of(std::string_view text) {
  std::vector<Entry> out;
  Entry current;
  for (size_t number = 1; !text.empty(); ++number) {
    std::string_view line = take_line(text);
    line = line.substr(0, line.find('#'));
    for (size_t semicolon; (semicolon = line.find(';')) != std::string_view::npos;) {
      const std::string_view piece = line.substr(0, semicolon);
      if (current.line == 0 && !trim(piece).empty()) current.line = number;
      current.text.append(piece);
      out.push_back(std::move(current));
      current = {};
      line.remove_prefix(semicolon + 1);
    }
    if (current.line == 0 && !trim(line).empty()) current.line = number;
    current.text.append(line).push_back(' ');
  }
  if (!trim(current.text).empty()) out.push_back(std::move(current));
  return out;
}

}  // namespace

Result<PartitionsConf> parse_partitions_conf(std::string_view text, std::string_view source) {
  PartitionsConf out;
  for (const Entry& e : entries_of(text)) {
    const std::string_view entry = trim(e.text);
    if (entry.empty()) continue;
    const auto colon = entry.find(':');
    if (colon == std::string_view::npos) {
      return Err("{}:{}: a partition is 'Name=PKey[,flags] : members ;' (no ':' in '{}')", source,
                 e.line, entry);
    }
    const std::string_view definition = trim(entry.substr(0, colon));
    const std::string_view head = trim(definition.substr(0, definition.find(',')));
    const auto equals = head.find('=');
    const std::string name(trim(head.substr(0, equals)));
    uint16_t partition = 0;
    if (equals != std::string_view::npos) {
      const std::string_view pkey_text = trim(head.substr(equals + 1));
      const auto pkey = parse_unsigned(pkey_text, 0, 0xFFFF);
      if (!pkey) {
        return Err("{}:{}: partition '{}': P_Key '{}': {}", source, e.line, name, pkey_text,
                   pkey.error());
      }
      partition = static_cast<uint16_t>(*pkey & 0x7FFF);  // opensm uses the low 15 bits
    } else if (name == "Default") {
      partition = 0x7FFF;
    }
    if (partition == 0) {
      out.skipped.push_back(name);
      continue;
    }
    out.names.try_emplace(partition, name);  // a P_Key named twice keeps its first name
  }
  return out;
}

Result<PartitionsConf> load_partitions_conf(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return Err("cannot read partition configuration {}", path.string());
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  return parse_partitions_conf(text, path.string());
}

}  // namespace ibpulse::collector
