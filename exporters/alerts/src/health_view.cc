#include "ibpulse/exporters/alerts/health_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "name_pattern.h"

namespace ibpulse::exporters::alerts {
namespace {

using nlohmann::json;

constexpr int kGridNoLink = 4;  // a grid cell's flag beside HealthFlag: no link (no peer)

std::string node_name(const converters::FabricSnapshot& s, uint64_t guid) {
  const collector::Node* node = s.topology ? s.topology->find_node(guid) : nullptr;
  return node ? node->name : collector::guid_string(guid);
}

json ratio(float v) {
  return std::isnan(v) ? json() : json(static_cast<double>(v));
}

json reason_list(uint16_t reasons) {
  json out = json::array();
  for (size_t bit = 0; bit < kHealthReasonCount; ++bit) {
    if ((reasons >> bit & 1) != 0) out.push_back(health_reason_name(bit));
  }
  return out;
}

json end_of(const converters::FabricSnapshot& s, const PortHealth& p) {
  return {{"node_guid", collector::guid_string(p.key.node_guid)},
          {"port", p.key.port},
          {"node", node_name(s, p.key.node_guid)},
          {"state", health_state_name(p.state)},
          {"reasons", reason_list(p.reasons)},
          {"symbol_ber", ratio(p.symbol_ber)},
          {"effective_ber", ratio(p.effective_ber)},
          {"raw_ber", ratio(p.raw_ber)},
          {"flaps", p.link_flaps},
          {"held", (p.flags & kFlagSwitchHeld) != 0},
          {"maintenance", (p.flags & kFlagMaintenance) != 0}};
}

double worst_ber(const PortHealth* a, const PortHealth* b) {
  double worst = 0;
  for (const PortHealth* p : {a, b}) {
    if (p == nullptr) continue;
    for (const float v : {p->symbol_ber, p->effective_ber}) {
      if (!std::isnan(v)) worst = std::max(worst, static_cast<double>(v));
    }
  }
  return worst;
}

bool matches(const converters::FabricSnapshot& s, collector::PortKey key, const NameFilter* f) {
  return f == nullptr || f->search(node_name(s, key.node_guid)) ||
         f->search(collector::guid_string(key.node_guid));
}

json worst_links(const converters::FabricSnapshot& s, const HealthSnapshot& h, size_t limit,
                 const NameFilter* filter) {
  struct Ranked {
    const LinkHealth* link;
    const PortHealth* a;
    const PortHealth* b;
    double ber;
    uint32_t flaps;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(h.links.size());
  for (const LinkHealth& l : h.links) {
    if (!matches(s, l.a, filter) && !matches(s, l.b, filter)) continue;
    const PortHealth* a = h.find_port(l.a);
    const PortHealth* b = h.find_port(l.b);
    const uint32_t flaps = std::max(a ? a->link_flaps : 0, b ? b->link_flaps : 0);
    ranked.push_back({&l, a, b, worst_ber(a, b), flaps});
  }
  const auto worse = [](const Ranked& x, const Ranked& y) {
    return std::tuple(x.link->state, x.ber, x.flaps) > std::tuple(y.link->state, y.ber, y.flaps);
  };
  const size_t n = std::min(limit, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n), ranked.end(),
                    worse);
  json out = json::array();
  for (size_t i = 0; i < n; ++i) {
    const Ranked& r = ranked[i];
    out.push_back({{"state", health_state_name(r.link->state)},
                   {"reasons", reason_list(r.link->reasons)},
                   {"a", r.a ? end_of(s, *r.a) : json()},
                   {"b", r.b ? end_of(s, *r.b) : json()}});
  }
  return out;
}

json port_ref(const converters::FabricSnapshot& s, collector::PortKey key) {
  return {{"node_guid", collector::guid_string(key.node_guid)},
          {"port", key.port},
          {"node", node_name(s, key.node_guid)}};
}

json roots_of(const converters::FabricSnapshot& s, const HealthSnapshot& h, size_t limit,
              const NameFilter* filter) {
  std::vector<const CongestionRoot*> roots;
  for (const CongestionRoot& r : h.congestion.roots) {
    const collector::Port* tp = s.topology ? s.topology->find_port(r.key) : nullptr;
    const bool peer_matches = tp && tp->remote && matches(s, *tp->remote, filter);
    if (matches(s, r.key, filter) || peer_matches) roots.push_back(&r);
  }
  std::stable_sort(roots.begin(), roots.end(),
                   [](const auto* x, const auto* y) { return x->victims > y->victims; });
  json out = json::array();
  for (size_t i = 0; i < std::min(limit, roots.size()); ++i) {
    const CongestionRoot& r = *roots[i];
    json j = port_ref(s, r.key);
    j["victims"] = r.victims;
    j["stuck"] = r.stuck;
    const converters::PortSnapshot* p = s.find(r.key);
    j["utilization"] = p ? json(static_cast<double>(p->utilisation_out)) : json();
    j["wait_ratio"] = p ? ratio(p->xmit_wait_ratio) : json();
    const collector::Port* tp = s.topology ? s.topology->find_port(r.key) : nullptr;
    j["peer"] = tp && tp->remote ? port_ref(s, *tp->remote) : json();
    out.push_back(std::move(j));
  }
  return out;
}

json summary_of(const converters::FabricSnapshot& s, const HealthSnapshot& h) {
  std::array<size_t, 3> states{};
  for (const LinkHealth& l : h.links)
    ++states[static_cast<size_t>(l.state)];
  size_t held = 0;
  size_t maintenance = 0;
  for (const PortHealth& p : h.ports) {
    held += (p.flags & kFlagSwitchHeld) != 0;
    maintenance += (p.flags & kFlagMaintenance) != 0;
  }
  json down = json::array();
  for (const uint64_t guid : h.switches_down)
    down.push_back({{"node_guid", collector::guid_string(guid)}, {"node", node_name(s, guid)}});
  return {{"ports", h.ports.size()},
          {"links", h.links.size()},
          {"ok", states[0]},
          {"degraded", states[1]},
          {"failing", states[2]},
          {"held_ports", held},
          {"maintenance_ports", maintenance},
          {"roots", h.congestion.roots.size()},
          {"victims", h.congestion.victims.size()},
          {"switches_down", std::move(down)}};
}

}  // namespace

std::string health_view_json(const converters::FabricSnapshot& s, const HealthSnapshot& h,
                             HealthViewLimits limits) {
  const json out = {{"sequence", h.sequence},
                    {"summary", summary_of(s, h)},
                    {"links", worst_links(s, h, limits.links, limits.filter)},
                    {"roots", roots_of(s, h, limits.roots, limits.filter)}};
  return out.dump();
}

std::string health_grid_json(const converters::FabricSnapshot& s, const HealthSnapshot& h) {
  std::map<collector::PortKey, int> roles;
  for (const CongestionRoot& r : h.congestion.roots)
    roles[r.key] = 1;
  for (const CongestionVictim& v : h.congestion.victims)
    roles[v.key] = 2;
  json switches = json::array();
  for (size_t i = 0; i < h.ports.size();) {
    const uint64_t guid = h.ports[i].key.node_guid;
    const collector::Node* node = s.topology ? s.topology->find_node(guid) : nullptr;
    const bool is_switch = node != nullptr && node->kind == collector::NodeKind::kSwitch;
    json ports = json::array();
    for (; i < h.ports.size() && h.ports[i].key.node_guid == guid; ++i) {
      const PortHealth& p = h.ports[i];
      if (!is_switch || p.key.port == 0) continue;
      const LinkHealth* link = h.find_link(p.key);
      const auto role = roles.find(p.key);
      const int flags = p.flags | (link ? 0 : kGridNoLink);
      ports.push_back({p.key.port, static_cast<int>(link ? link->state : p.state),
                       role == roles.end() ? 0 : role->second, flags});
    }
    if (!is_switch) continue;
    switches.push_back(
        {{"node_guid", collector::guid_string(guid)},
         {"node", node->name},
         {"down", std::binary_search(h.switches_down.begin(), h.switches_down.end(), guid)},
         {"ports", std::move(ports)}});
  }
  return json{{"sequence", h.sequence}, {"switches", std::move(switches)}}.dump();
}

}  // namespace ibpulse::exporters::alerts
