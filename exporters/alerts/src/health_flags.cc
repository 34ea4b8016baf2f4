#include "health_flags.h"

#include <algorithm>

#include "ibpulse/base/number.h"
#include "name_pattern.h"

namespace ibpulse::exporters::alerts::detail {
bool is_guid(const std::string& text) {
  return text.starts_with("0x") && parse_unsigned(text, 1, UINT64_MAX).ok();
}

HealthFlagger::HealthFlagger(const HealthOptions& options) : switches_(options.switch_hold) {
  for (const MaintenanceWindow& m : options.maintenance) {
    Window w;
    w.until = m.until;
    if (is_guid(m.node)) {
      w.guid = *parse_unsigned(m.node, 1, UINT64_MAX);
    } else if (auto pattern = NameFilter::compile(m.node)) {
      w.name = *pattern;
    } else {
      continue;  // the configuration checked it (check_maintenance_node)
    }
    windows_.push_back(std::move(w));
  }
}

bool HealthFlagger::in_maintenance(const collector::Node* node, uint64_t guid,
                                   std::chrono::system_clock::time_point wall) const {
  return std::ranges::any_of(windows_, [&](const Window& w) {
    if (wall >= w.until) return false;
    return w.guid != 0 ? w.guid == guid : node != nullptr && w.name->search(node->name);
  });
}

void HealthFlagger::apply(const converters::FabricSnapshot& s,
                          std::chrono::system_clock::time_point wall, HealthSnapshot& out) {
  switches_.update(s);
  out.switches_down = switches_.down();
  uint64_t guid = 0;
  uint8_t node_flags = 0;
  for (size_t i = 0; i < out.ports.size(); ++i) {
    if (i == 0 || out.ports[i].key.node_guid != guid) {
      guid = out.ports[i].key.node_guid;
      const collector::Node* node = s.topology ? s.topology->find_node(guid) : nullptr;
      node_flags = static_cast<uint8_t>((switches_.held(guid) ? kFlagSwitchHeld : 0) |
                                        (in_maintenance(node, guid, wall) ? kFlagMaintenance : 0));
    }
    out.ports[i].flags = node_flags;
  }
  // A link's two ends share their flags: the peer of a switch that went down is held too.
  const auto index_of = [&](collector::PortKey key) {
    const PortHealth* p = out.find_port(key);
    return p ? static_cast<size_t>(p - out.ports.data()) : out.ports.size();
  };
  for (const LinkHealth& l : out.links) {
    const size_t a = index_of(l.a);
    const size_t b = index_of(l.b);
    uint8_t both = 0;
    for (const size_t end : {a, b})
      if (end < out.ports.size()) both = static_cast<uint8_t>(both | out.ports[end].flags);
    for (const size_t end : {a, b}) {
      if (end < out.ports.size()) out.ports[end].flags = both;
    }
  }
}

}  // namespace ibpulse::exporters::alerts::detail

namespace ibpulse::exporters::alerts {

Status check_maintenance_node(const std::string& node) {
  if (detail::is_guid(node)) return Ok{};
  auto pattern = NameFilter::compile(node);
  if (!pattern) return Error{pattern.error()};
  return Ok{};
}

}  // namespace ibpulse::exporters::alerts
