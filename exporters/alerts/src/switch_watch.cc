#include "switch_watch.h"

#include <algorithm>

namespace ibpulse::exporters::alerts::detail {

SwitchWatch::Count SwitchWatch::count(const converters::FabricSnapshot& s, size_t first,
                                      size_t last) {
  Count c;
  for (size_t i = first; i < last; ++i) {
    const converters::PortSnapshot& p = s.ports[i];
    if (p.key.port == 0) continue;  // the management port goes with the switch, never a link
    ++c.ports;
    c.read += p.present != 0;
    c.active += p.oper_status == converters::OperStatus::kUp;
    c.in_topology += p.in_topology;
    c.foreign_clears += p.foreign_clears;
  }
  return c;
}

void SwitchWatch::update(const converters::FabricSnapshot& s) {
  now_ = s.published;
  down_.clear();
  held_.clear();
  for (size_t first = 0; first < s.ports.size();) {
    const uint64_t guid = s.ports[first].key.node_guid;
    size_t last = first;
    while (last < s.ports.size() && s.ports[last].key.node_guid == guid)
      ++last;
    const collector::Node* node = s.topology ? s.topology->find_node(guid) : nullptr;
    const bool is_switch = node ? node->kind == collector::NodeKind::kSwitch
                                : watches_.contains(guid);  // gone from discovery: as it was
    if (is_switch) {
      const Count c = count(s, first, last);
      auto [it, fresh] = watches_.try_emplace(guid);
      Watch& w = it->second;
      if (!fresh) {
        const bool lost_links = w.active >= 2 && c.active == 0;
        const bool left = w.in_topology > 0 && c.in_topology == 0;
        const bool rebooted = c.read >= 2 && c.foreign_clears - w.foreign_clears_before >= c.read;
        w.down = lost_links || left || rebooted || (w.down && c.active == 0);
      }
      if (w.down) w.held_until = now_ + hold_;
      if (w.down) down_.push_back(guid);
      if (now_ < w.held_until) held_.push_back(guid);
      if (!w.down || c.active > 0) w.active = c.active;  // a switch down keeps its old count
      w.in_topology = c.in_topology;
      w.foreign_clears_before = fresh ? c.foreign_clears : w.foreign_clears;
      w.foreign_clears = c.foreign_clears;
    }
    first = last;
  }
}

bool SwitchWatch::held(uint64_t switch_guid) const {
  return std::binary_search(held_.begin(), held_.end(), switch_guid);
}

}  // namespace ibpulse::exporters::alerts::detail
