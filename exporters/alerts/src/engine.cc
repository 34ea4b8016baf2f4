#include "ibpulse/exporters/alerts/engine.h"

#include <cmath>
#include <map>

#include "history.h"
#include "ibpulse/collector/link_capability.h"
#include "storm_control.h"

namespace ibpulse::exporters::alerts {
namespace {

using converters::Clock;
using converters::FabricSnapshot;
using converters::OperStatus;
using converters::PortSnapshot;

constexpr Clock::time_point kNever{};

// One rule on one port, from the first time its condition held until it cleared.
struct Instance {
  Clock::time_point true_since = kNever, false_since = kNever;
  bool raised = false, notified = false;
  Clock::time_point last_notice = kNever;  // the last raise we tried to notify
  std::chrono::system_clock::time_point raised_wall{};
  double value = 0;
  uint64_t seen_round = 0;
};

struct RuleState {
  CounterHistory* history = nullptr;  // delta and rate rules
  std::unordered_map<collector::PortKey, Instance, collector::PortKeyHash> instances;
  // Whether each port of the current layout is in the rule's scope.
  std::vector<char> in_scope;
  PortLayout scope_layout;
  const collector::Topology* scope_topology = nullptr;
};

}  // namespace

struct ThresholdEngine::Impl {
  explicit Impl(const EngineOptions& o) : options(o), storm(o) {}

  EngineOptions options;
  StormControl storm;
  std::vector<std::unique_ptr<CounterHistory>> histories;
  std::vector<RuleState> states;
  PortLayout layout;
  std::vector<const collector::Node*> nodes;  // per snapshot port, or null
  std::vector<const collector::Port*> links;  // per snapshot port: its discovery entry
  std::unordered_set<collector::PortKey, collector::PortKeyHash> ever_active;
  std::unordered_map<collector::PortKey, OperStatus, collector::PortKeyHash> oper;
  uint64_t round = 0;

  void index_ports(const FabricSnapshot& s);
  const std::vector<char>& scope_of(const Rule& rule, RuleState& st, const FabricSnapshot& s);
};

void ThresholdEngine::Impl::index_ports(const FabricSnapshot& s) {
  if (!layout || layout->size() != s.ports.size() ||
      !std::equal(layout->begin(), layout->end(), s.ports.begin(),
                  [](collector::PortKey k, const PortSnapshot& p) { return k == p.key; })) {
    auto keys = std::make_shared<std::vector<collector::PortKey>>();
    keys->reserve(s.ports.size());
    for (const auto& p : s.ports)
      keys->push_back(p.key);
    layout = std::move(keys);
  }
  nodes.assign(s.ports.size(), nullptr);
  links.assign(s.ports.size(), nullptr);
  if (!s.topology) return;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    nodes[i] = s.topology->find_node(s.ports[i].key.node_guid);
    links[i] = s.topology->find_port(s.ports[i].key);
  }
}

const std::vector<char>& ThresholdEngine::Impl::scope_of(const Rule& rule, RuleState& st,
                                                         const FabricSnapshot& s) {
  if (st.scope_layout == layout && st.scope_topology == s.topology.get()) return st.in_scope;
  st.scope_layout = layout;
  st.scope_topology = s.topology.get();
  st.in_scope.assign(s.ports.size(), 0);
  for (size_t i = 0; i < s.ports.size(); ++i) {
    st.in_scope[i] = nodes[i] != nullptr && rule.scope.matches(*nodes[i], s.ports[i].key.port);
  }
  return st.in_scope;
}

namespace {

AlertEvent port_event(EventKind kind, const PortSnapshot& p, const collector::Node* node,
                      std::chrono::system_clock::time_point wall) {
  AlertEvent e;
  e.kind = kind;
  e.when = wall;
  e.port = p.key;
  e.if_index = p.if_index;
  e.node_name = node ? node->name : collector::guid_string(p.key.node_guid);
  return e;
}

void describe(AlertEvent& e, const Rule& r, double value) {
  e.rule = r.name;
  e.counter = r.counter;
  e.condition = r.measure;
  e.severity = r.severity;
  e.window_seconds =
      static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(r.window).count());
  const bool percent = r.measure == Condition::kPercent;
  e.value = percent ? value * 100 : value;
  e.threshold = percent ? r.threshold * 100 : r.threshold;
}

// A state rule's condition on port i; nothing when it cannot be judged.
std::optional<double> state_value(
    const Rule& r, const collector::Port* link, const collector::Topology& topology,
    const std::unordered_set<collector::PortKey, collector::PortKeyHash>& ever_active) {
  if (link == nullptr || link->link.state == 0) return std::nullopt;  // PortInfo never read
  if (r.kind == RuleKind::kPortDown) {
    // Down after being Active, or down with a peer: never the unconnected ports that were down
    // from the start.
    const bool down = !link->active() && (ever_active.count(link->key) || link->remote);
    return down ? 1.0 : 0.0;
  }
  return collector::link_capability(topology, *link).degraded() ? 1.0 : 0.0;
}

}  // namespace

ThresholdEngine::ThresholdEngine(std::vector<Rule> rules, EngineOptions options)
    : rules_(std::move(rules)), impl_(std::make_unique<Impl>(options)) {
  impl_->states.resize(rules_.size());
  std::map<std::pair<std::string, int64_t>, CounterHistory*> shared;
  for (size_t r = 0; r < rules_.size(); ++r) {
    const Rule& rule = rules_[r];
    if (rule.kind != RuleKind::kCounter || is_gauge(rule.source)) continue;
    auto& h = shared[{rule.counter, rule.window.count()}];
    if (h == nullptr) {
      impl_->histories.push_back(std::make_unique<CounterHistory>(rule.source, rule.window));
      h = impl_->histories.back().get();
    }
    impl_->states[r].history = h;
  }
}

ThresholdEngine::~ThresholdEngine() = default;

std::vector<Decision> ThresholdEngine::evaluate(const FabricSnapshot& s,
                                                std::chrono::system_clock::time_point wall) {
  Impl& m = *impl_;
  const Clock::time_point now = s.published;
  ++m.round;
  m.index_ports(s);
  std::vector<Decision> out;
  const auto notify = [&](AlertEvent e) {
    const bool sent = m.storm.admit(e, now);
    stats_.notified += sent;
    out.push_back({std::move(e), sent});
    return sent;
  };

  // IF-MIB link changes: ifOperStatus leaving or reaching up; the first sight is no change.
  for (size_t i = 0; i < s.ports.size(); ++i) {
    const PortSnapshot& p = s.ports[i];
    if (m.links[i] && m.links[i]->active()) m.ever_active.insert(p.key);
    auto [it, fresh] = m.oper.try_emplace(p.key, p.oper_status);
    if (fresh || it->second == p.oper_status) continue;
    const bool was_up = it->second == OperStatus::kUp, is_up = p.oper_status == OperStatus::kUp;
    it->second = p.oper_status;
    if (was_up == is_up || p.if_index == 0) continue;
    AlertEvent e =
        port_event(is_up ? EventKind::kLinkUp : EventKind::kLinkDown, p, m.nodes[i], wall);
    e.oper_status = static_cast<uint8_t>(p.oper_status);
    e.admin_status = m.links[i] && m.links[i]->link.phys_state == 3 ? 2 : 1;  // 3: Disabled
    ++stats_.link_changes;
    notify(std::move(e));
  }

  for (size_t r = 0; r < rules_.size(); ++r) {
    const Rule& rule = rules_[r];
    RuleState& st = m.states[r];
    const auto& scope = m.scope_of(rule, st, s);
    for (size_t i = 0; i < s.ports.size(); ++i) {
      if (!scope[i]) continue;
      const PortSnapshot& p = s.ports[i];
      std::optional<double> value;
      if (rule.kind != RuleKind::kCounter) {
        if (s.topology) value = state_value(rule, m.links[i], *s.topology, m.ever_active);
      } else if (is_gauge(rule.source)) {
        value = gauge_value(rule.source, p);
      } else if (const auto inc = st.history->increase(s, m.layout, i)) {
        if (rule.measure == Condition::kDelta) {
          value = static_cast<double>(inc->delta);
        } else if (inc->seconds > 0) {
          value = static_cast<double>(inc->delta) / inc->seconds;
        }
      }
      const bool holds =
          value && (rule.kind == RuleKind::kCounter ? rule.holds(*value) : *value > 0);
      auto found = st.instances.find(p.key);
      if (!holds && found == st.instances.end()) continue;
      Instance& in = found != st.instances.end() ? found->second : st.instances[p.key];
      in.seen_round = m.round;
      if (holds) {
        in.value = *value;
        in.false_since = kNever;
        if (in.true_since == kNever) in.true_since = now;
        const bool due_raise = !in.raised && now - in.true_since >= rule.hold_for;
        // A raise storm control withheld is tried again each interval; a sent one renotifies.
        const bool retry =
            in.raised && !in.notified && now - in.last_notice >= m.options.rate_interval;
        const bool renotify = in.raised && in.notified && rule.renotify.count() > 0 &&
                              now - in.last_notice >= rule.renotify;
        if (!due_raise && !retry && !renotify) continue;
        if (due_raise) {
          in.raised = true;
          in.raised_wall = wall;
          ++stats_.raised;
        }
        AlertEvent e = port_event(EventKind::kRaised, p, m.nodes[i], wall);
        e.renotify = renotify;
        describe(e, rule, in.value);
        in.last_notice = now;
        in.notified = notify(std::move(e)) || (renotify && in.notified);
        continue;
      }
      if (!in.raised) {
        st.instances.erase(found);
        continue;
      }
      if (in.false_since == kNever) in.false_since = now;
      if (value) in.value = *value;
      if (now - in.false_since < rule.clear_after) continue;
      AlertEvent e = port_event(EventKind::kCleared, p, m.nodes[i], wall);
      describe(e, rule, in.value);
      ++stats_.cleared;
      if (in.notified) m.storm.admit_clear();
      stats_.notified += in.notified;
      out.push_back({std::move(e), in.notified});
      st.instances.erase(found);
    }
    // Instances of ports gone from the snapshot: their condition no longer holds.
    for (auto it = st.instances.begin(); it != st.instances.end();) {
      Instance& in = it->second;
      if (in.seen_round == m.round) {
        ++it;
        continue;
      }
      in.seen_round = m.round;
      if (!in.raised) {
        it = st.instances.erase(it);
        continue;
      }
      if (in.false_since == kNever) in.false_since = now;
      if (now - in.false_since < rule.clear_after) {
        ++it;
        continue;
      }
      AlertEvent e;
      e.kind = EventKind::kCleared;
      e.when = wall;
      e.port = it->first;
      e.node_name = collector::guid_string(it->first.node_guid);
      describe(e, rule, in.value);
      ++stats_.cleared;
      if (in.notified) m.storm.admit_clear();
      stats_.notified += in.notified;
      out.push_back({std::move(e), in.notified});
      it = st.instances.erase(it);
    }
  }
  for (auto& h : m.histories)
    h->observe(s, m.layout);
  for (AlertEvent& e : m.storm.tick(now, wall)) {
    ++stats_.notified;
    out.push_back({std::move(e), true});
  }
  stats_.suppressed = m.storm.suppressed();
  return out;
}

std::vector<AlertEvent> ThresholdEngine::active() const {
  std::vector<AlertEvent> out;
  for (size_t r = 0; r < rules_.size(); ++r) {
    for (const auto& [key, in] : impl_->states[r].instances) {
      if (!in.raised) continue;
      AlertEvent e;
      e.kind = EventKind::kRaised;
      e.when = in.raised_wall;
      e.port = key;
      describe(e, rules_[r], in.value);
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace ibpulse::exporters::alerts
