// What the threshold engine reads from a snapshot: link events (linkDown/linkUp as a port's
// operational status changes) and the measure a rule judges on a port (a counter's delta,
// rate or share over its window; a link's health state). Raising and clearing: engine.cc.
#include <algorithm>
#include <cmath>

#include "engine_state.h"
#include "ibpulse/collector/link_capability.h"

namespace ibpulse::exporters::alerts {

using converters::FabricSnapshot;
using converters::OperStatus;
using converters::PortSnapshot;

void ThresholdEngine::Impl::follow_links(Step& step) {
  const FabricSnapshot& s = step.snapshot;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    const PortSnapshot& p = s.ports[i];
    PortHistory& h = port_history[i];
    if (links[i] && links[i]->active()) h.ever_active = true;
    const auto before = h.oper;
    h.oper = p.oper_status;
    if (!h.seen || before == p.oper_status) {
      h.seen = true;
      continue;
    }
    const bool was_up = before == OperStatus::kUp;
    const bool is_up = p.oper_status == OperStatus::kUp;
    if (was_up == is_up || p.if_index == 0) continue;
    AlertEvent e =
        port_event(is_up ? EventKind::kLinkUp : EventKind::kLinkDown, p, nodes[i], step.wall);
    e.oper_status = static_cast<uint8_t>(p.oper_status);
    e.admin_status = links[i] && links[i]->link.phys_state == 3 ? 2 : 1;  // 3: Disabled
    ++stats.link_changes;
    // SMA trap 128: a switch's port changed state (IBA: switches send it, for any port). It
    // goes with its port's linkDown/linkUp, so the link hold-down that withholds a flapping
    // port's link notifications withholds it too.
    const bool sent = notify(std::move(e), step);
    if (sent && nodes[i] != nullptr && nodes[i]->kind == collector::NodeKind::kSwitch) {
      ++stats.sma_events;
      notify(sma_event(128, i, step), step);
    }
  }
}

std::optional<double> ThresholdEngine::Impl::measure(const Rule& rule, RuleState& st,
                                                     const Step& step, size_t i) const {
  const FabricSnapshot& s = step.snapshot;
  if (rule.kind == RuleKind::kCounter) {
    if (is_gauge(rule.source)) return gauge_value(rule.source, s.ports[i]);
    const auto inc = st.history->increase(s, i);
    if (!inc) return std::nullopt;
    if (rule.measure == Condition::kDelta) return static_cast<double>(inc->delta);
    if (inc->seconds <= 0) return std::nullopt;
    return static_cast<double>(inc->delta) / inc->seconds;
  }
  if (rule.kind == RuleKind::kHealth) return measure_health(rule, step, i);
  if (rule.kind == RuleKind::kSwitchDown) {
    // Judged at the switch's first row (port 0), the one instance for the node.
    if (step.health == nullptr ||
        (i > 0 && s.ports[i - 1].key.node_guid == s.ports[i].key.node_guid))
      return std::nullopt;
    const bool down =
        std::binary_search(step.health->switches_down.begin(), step.health->switches_down.end(),
                           s.ports[i].key.node_guid);
    const bool a_switch = nodes[i] != nullptr && nodes[i]->kind == collector::NodeKind::kSwitch;
    if (!down && !a_switch) return std::nullopt;
    return down ? 1.0 : 0.0;
  }
  const collector::Port* link = links[i];
  if (!s.topology || link == nullptr || link->link.state == 0) return std::nullopt;  // not read
  if (rule.kind == RuleKind::kPortDown) {
    // Down after being Active, or down with a peer: never the unconnected ports that were down
    // from the start.
    const bool down = !link->active() && (port_history[i].ever_active || link->remote);
    return down ? 1.0 : 0.0;
  }
  return degraded[i] ? 1.0 : 0.0;
}

// A link is one thing to alert on: judged at its lower end (the other end if only that one is
// polled here), on both ends' reasons; the value is the worse end's.
std::optional<double> ThresholdEngine::Impl::measure_health(const Rule& rule, const Step& step,
                                                            size_t i) {
  if (step.health == nullptr) return std::nullopt;
  const HealthSnapshot& health = *step.health;
  const PortHealth& h = health.ports[i];
  const uint32_t l =
      i < health.link_of_port.size() ? health.link_of_port[i] : HealthSnapshot::kNoLink;
  const LinkHealth* link = l == HealthSnapshot::kNoLink ? nullptr : &health.links[l];
  const PortHealth* peer = nullptr;
  if (link != nullptr) {
    const collector::PortKey other = link->a == h.key ? link->b : link->a;
    peer = health.find_port(other);
    const bool speaks = link->a == h.key || health.find_port(link->a) == nullptr;
    if (!speaks) return std::nullopt;
  }
  const uint16_t reasons = link ? link->reasons : h.reasons;
  if ((reasons & rule.health_reasons) == 0) return 0.0;
  // The value notifications carry: the flaps, or the BER that is above spec.
  const auto value_of = [&](const PortHealth& p) {
    const double v = rule.health_reasons == kReasonFlapping ? static_cast<double>(p.link_flaps)
                     : !std::isnan(p.symbol_ber) && p.symbol_ber > 0
                         ? static_cast<double>(p.symbol_ber)
                         : static_cast<double>(p.effective_ber);
    return std::isnan(v) ? 0.0 : v;
  };
  const double v = std::max(value_of(h), peer ? value_of(*peer) : 0.0);
  return v <= 0 ? 1.0 : v;
}

}  // namespace ibpulse::exporters::alerts
