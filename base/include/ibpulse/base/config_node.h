#pragma once
// A configuration value as the operator wrote it: text, a list or a map, each carrying where it
// was written ("config.yaml:12", "--snmp.users"), so that every parser of a setting (a trap
// sink, a rule, a remote-write receiver) can say where a mistake is. Scalars stay text: each
// setting reads its own (a duration, a GUID, a number) with base/number.h and base/duration.h,
// the same way from a file and from a flag.
//
// Thread safety: a value type; read_config_file() and parse_config_text() are pure functions
// of their input.

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse {

class ConfigNode {
 public:
  enum class Kind { kNull, kScalar, kList, kMap };
  using Field = std::pair<std::string, ConfigNode>;

  ConfigNode() = default;
  static ConfigNode null(std::string where);
  static ConfigNode scalar(std::string text, std::string where);
  static ConfigNode list(std::vector<ConfigNode> items, std::string where);
  static ConfigNode map(std::vector<Field> fields, std::string where);

  Kind kind() const { return kind_; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_map() const { return kind_ == Kind::kMap; }
  const std::string& text() const { return text_; }                // a scalar's; empty otherwise
  const std::vector<ConfigNode>& items() const { return items_; }  // a list's
  const std::vector<Field>& fields() const { return fields_; }     // a map's, as written
  const ConfigNode* find(std::string_view key) const;              // a map's field, or null
  // "config.yaml:12" or "--alerts.rules": where the value was written.
  const std::string& where() const { return where_; }

  // A list's items; a scalar or a map as the one item of a list (a list key given one value);
  // nothing for null.
  std::vector<const ConfigNode*> as_list() const;

 private:
  Kind kind_ = Kind::kNull;
  std::string text_;
  std::vector<ConfigNode> items_;
  std::vector<Field> fields_;
  std::string where_;
};

// A YAML file's content; an error names the file and line.
Result<ConfigNode> read_config_file(const std::filesystem::path& path);

// YAML flow text ("{name: a, auth-password: x}", "[a, b]", JSON alike), as a flag may give a
// map; a plain word is one scalar whatever it holds. `where` names the flag.
Result<ConfigNode> parse_config_text(std::string_view text, std::string where);

}  // namespace ibpulse
