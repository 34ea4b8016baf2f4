#include "ibpulse/sim/port_spec.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "pma_fields.h"

namespace ibpulse::sim {
namespace {

std::optional<unsigned> parse_port_number(std::string_view s) {
  unsigned v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v == 0 || v > 255) return std::nullopt;
  return v;
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

Result<PortSpec> parse_port_spec(std::string_view text, bool allow_all_ports) {
  const auto bad = [&] {
    return Err("bad port '{}': write NODE[PORT] or NODE:PORT, e.g. Hca1[1]{}", text,
               allow_all_ports ? " (or NODE for all its ports)" : "");
  };
  std::string_view node = text;
  std::string_view port;
  if (!text.empty() && text.back() == ']') {
    const auto open = text.rfind('[');
    if (open == std::string_view::npos) return bad();
    node = text.substr(0, open);
    port = text.substr(open + 1, text.size() - open - 2);
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    node = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  node = unquote(node);
  if (node.empty() || node.find_first_of("\"[]") != std::string_view::npos) return bad();
  PortSpec spec{std::string(node), 0};
  if (port.empty()) {
    if (!allow_all_ports || node.size() != unquote(text).size()) return bad();
    return spec;
  }
  auto number = parse_port_number(port);
  if (!number) return bad();
  spec.port = *number;
  return spec;
}

std::string console_port(const PortSpec& spec) {
  if (spec.port == 0) return fmt::format("\"{}\"", spec.node);
  return fmt::format("\"{}\"[{}]", spec.node, spec.port);
}

bool is_injectable_field(std::string_view attribute, std::string_view field) {
  const auto* table = find_pma_attribute(attribute);
  return table != nullptr && find_pma_field(*table, field) != nullptr && !is_traffic_field(field);
}

Result<std::vector<ErrorSpec>> parse_error_specs(std::string_view text) {
  std::vector<ErrorSpec> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    ErrorSpec spec;
    std::string_view rule = item;
    if (const auto at = rule.find('@'); at != std::string_view::npos) {
      auto where = parse_port_spec(rule.substr(at + 1), true);
      if (!where) return Error{where.error()};
      spec.where = *where;
      rule = rule.substr(0, at);
    }
    const auto eq = rule.find('=');
    if (eq == std::string_view::npos) {
      return Err("bad error rule '{}': write [Attribute.]Field=RATE[@NODE[PORT]]", item);
    }
    std::string_view name = rule.substr(0, eq);
    if (const auto dot = name.find('.'); dot != std::string_view::npos) {
      spec.attribute = std::string(name.substr(0, dot));
      name = name.substr(dot + 1);
    }
    spec.field = std::string(name);
    const std::string rate(rule.substr(eq + 1));
    char* end = nullptr;
    spec.per_second = std::strtod(rate.c_str(), &end);
    if (rate.empty() || *end != '\0' || !std::isfinite(spec.per_second) || spec.per_second < 0) {
      return Err("bad rate '{}' in '{}': a non-negative number of errors per second", rate, item);
    }
    if (!is_injectable_field(spec.attribute, spec.field)) {
      return Err("'{}.{}' is not an error counter the generator can drive; try one of: {}",
                 spec.attribute, spec.field, injectable_field_names());
    }
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace ibpulse::sim
