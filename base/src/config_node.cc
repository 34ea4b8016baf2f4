#include "ibpulse/base/config_node.h"

#include <yaml-cpp/yaml.h>

namespace ibpulse {
namespace {

std::string where_of(const YAML::Node& node, const std::string& file, const std::string& flag) {
  return file.empty() ? flag : fmt::format("{}:{}", file, node.Mark().line + 1);
}

// `file` empty: a flag's text, whose nodes all carry the flag's name. A map's values are where
// their keys are (a block list starts on the line after its key; the key is what one looks for).
ConfigNode from_yaml(const YAML::Node& node, const std::string& file, const std::string& flag,
                     const std::string& where) {
  if (node.IsMap()) {
    std::vector<ConfigNode::Field> fields;
    for (const auto& field : node) {
      fields.emplace_back(field.first.as<std::string>(),
                          from_yaml(field.second, file, flag, where_of(field.first, file, flag)));
    }
    return ConfigNode::map(std::move(fields), where);
  }
  if (node.IsSequence()) {
    std::vector<ConfigNode> items;
    for (const auto& item : node)
      items.push_back(from_yaml(item, file, flag, where_of(item, file, flag)));
    return ConfigNode::list(std::move(items), where);
  }
  if (node.IsNull()) return ConfigNode::null(where);
  return ConfigNode::scalar(node.as<std::string>(), where);
}

}  // namespace

ConfigNode ConfigNode::null(std::string where) {
  ConfigNode n;
  n.where_ = std::move(where);
  return n;
}

ConfigNode ConfigNode::scalar(std::string text, std::string where) {
  ConfigNode n;
  n.kind_ = Kind::kScalar;
  n.text_ = std::move(text);
  n.where_ = std::move(where);
  return n;
}

ConfigNode ConfigNode::list(std::vector<ConfigNode> items, std::string where) {
  ConfigNode n;
  n.kind_ = Kind::kList;
  n.items_ = std::move(items);
  n.where_ = std::move(where);
  return n;
}

ConfigNode ConfigNode::map(std::vector<Field> fields, std::string where) {
  ConfigNode n;
  n.kind_ = Kind::kMap;
  n.fields_ = std::move(fields);
  n.where_ = std::move(where);
  return n;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  for (const auto& [name, value] : fields_) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::vector<const ConfigNode*> ConfigNode::as_list() const {
  std::vector<const ConfigNode*> out;
  if (kind_ == Kind::kList) {
    for (const auto& item : items_)
      out.push_back(&item);
  } else if (kind_ != Kind::kNull) {
    out.push_back(this);
  }
  return out;
}

Result<ConfigNode> read_config_file(const std::filesystem::path& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    return from_yaml(root, path.string(), "", where_of(root, path.string(), ""));
  } catch (const YAML::BadFile&) {
    return Err("{}: cannot read the file", path.string());
  } catch (const YAML::Exception& e) {
    return Err("{}:{}: {}", path.string(), e.mark.line + 1, e.msg);
  }
}

Result<ConfigNode> parse_config_text(std::string_view text, std::string where) {
  // Only a flow map or list is parsed: any other text is the value itself (`a: b` would be a
  // map to YAML).
  const bool structured = text.starts_with('{') || text.starts_with('[');
  if (!structured) return ConfigNode::scalar(std::string(text), std::move(where));
  try {
    return from_yaml(YAML::Load(std::string(text)), "", where, where);
  } catch (const YAML::Exception& e) {
    return Err("{}: {}", where, e.msg);
  }
}

}  // namespace ibpulse
