// opensm's partition configuration, read for the partitions' names (partitions.h).
#include <fstream>
#include <iterator>

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
  size_t line = 1;
  bool comment = false;
  for (const char c : text) {
    if (c == '\n') {
      ++line;
      comment = false;
      current.text.push_back(' ');
      continue;
    }
    if (comment) continue;
    if (c == '#') {
      comment = true;
      continue;
    }
    if (current.line == 0 && c != ' ' && c != '\t' && c != '\r') current.line = line;
    if (c == ';') {
      out.push_back(std::move(current));
      current = {};
      continue;
    }
    current.text.push_back(c);
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
