#include "ibpulse/base/config_keys.h"

#include <cstdlib>

namespace ibpulse::config {
namespace {

Status walk(const ConfigNode& map, const std::string& prefix,
            const std::function<bool(const std::string&)>& known, std::string_view unknown_hint,
            std::vector<std::pair<std::string, const ConfigNode*>>& out) {
  for (const auto& [key, value] : map.fields()) {
    const std::string name = prefix + key;
    if (value.is_map() && !known(name)) {
      if (auto s = walk(value, name + ".", known, unknown_hint, out); !s) return s;
      continue;
    }
    if (!known(name)) return Err("{}: unknown key '{}'{}", value.where(), name, unknown_hint);
    out.emplace_back(name, &value);
  }
  return Ok{};
}

// Well-formed UTF-8 (RFC 3629): no stray continuation bytes, overlong forms, surrogates or
// code points above U+10FFFF.
bool valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + length > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return false;
    for (size_t k = 2; k < length; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

Status check_utf8(const ConfigNode& value) {
  bool ok = valid_utf8(value.text());
  for (const auto& item : value.items())
    ok = ok && check_utf8(item).ok();
  for (const auto& [key, field] : value.fields())
    ok = ok && valid_utf8(key) && check_utf8(field).ok();
  if (!ok) return Err("a value is not valid UTF-8 text");
  return Ok{};
}

Result<ConfigNode> flag_node(const KeyInfo& key, const std::vector<std::string>& values) {
  const std::string where = "--" + key.name;
  const auto node = [&](const std::string& value) -> Result<ConfigNode> {
    if (key.maps && value.starts_with('{')) return parse_config_text(value, where);
    return ConfigNode::scalar(value, where);
  };
  if (values.size() == 1) return node(values[0]);
  std::vector<ConfigNode> items;
  for (const auto& value : values) {
    auto item = node(value);
    if (!item) return item;
    items.push_back(std::move(*item));
  }
  return ConfigNode::list(std::move(items), where);
}

Result<std::vector<std::pair<std::string, const ConfigNode*>>> flatten(
    const ConfigNode& root, const std::function<bool(const std::string&)>& known,
    std::string_view unknown_hint) {
  std::vector<std::pair<std::string, const ConfigNode*>> out;
  if (root.kind() == ConfigNode::Kind::kNull) return out;  // an empty file
  if (!root.is_map()) {
    const std::string& where = root.where();
    return Err("{}: the configuration must be a map of keys", where.substr(0, where.rfind(':')));
  }
  if (auto s = walk(root, "", known, unknown_hint, out); !s) return Error{s.error()};
  return out;
}

Status one_value(const ConfigNode& v) {
  switch (v.kind()) {
    case ConfigNode::Kind::kScalar:
      return Ok{};
    case ConfigNode::Kind::kNull:
      return Err("expected one value, got 0");
    case ConfigNode::Kind::kList:
      return Err("expected one value, got {}", v.items().size());
    case ConfigNode::Kind::kMap:
      return Err("expected one value, got a map");
  }
  return Err("expected one value");
}

Result<std::vector<std::string>> texts(const ConfigNode& v) {
  std::vector<std::string> out;
  for (const ConfigNode* item : v.as_list()) {
    if (item->is_map() || item->is_list()) return Err("expected a list of values, got a map");
    out.push_back(item->text());  // a null item (`- `) is empty text
  }
  return out;
}

Result<double> parse_real(const std::string& text, double min, double max) {
  char* end = nullptr;
  const double f = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(f >= min && f <= max)) {
    return Err("expected a number from {} to {}, got '{}'", min, max, text);
  }
  return f;
}

}  // namespace ibpulse::config
