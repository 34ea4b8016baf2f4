#include "ibpulse/exporters/alerts/engine.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine_state.h"
#include "ibpulse/collector/link_capability.h"

namespace ibpulse::exporters::alerts {
namespace {

using converters::FabricSnapshot;
using converters::PortSnapshot;

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

}  // namespace

AlertEvent port_event(EventKind kind, const converters::PortSnapshot& p,
                      const collector::Node* node, std::chrono::system_clock::time_point wall) {
  AlertEvent e;
  e.kind = kind;
  e.when = wall;
  e.port = p.key;
  e.if_index = p.if_index;
  e.node_name = node ? node->name : collector::guid_string(p.key.node_guid);
  return e;
}

void ThresholdEngine::Impl::index_ports(const FabricSnapshot& s) {
  const bool same_layout =
      layout && layout->size() == s.ports.size() &&
      std::equal(layout->begin(), layout->end(), s.ports.begin(),
                 [](collector::PortKey k, const PortSnapshot& p) { return k == p.key; });
  if (!same_layout) {
    auto keys = std::make_shared<std::vector<collector::PortKey>>();
    keys->reserve(s.ports.size());
    for (const auto& p : s.ports)
      keys->push_back(p.key);
    carry_port_history(*keys);
    layout = std::move(keys);
  }
  // Discovery's entries change only with the topology: looked up again only then.
  if (same_layout && indexed_topology == s.topology) return;
  indexed_topology = s.topology;
  nodes.assign(s.ports.size(), nullptr);
  links.assign(s.ports.size(), nullptr);
  degraded.assign(s.ports.size(), 0);
  if (!s.topology) return;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    nodes[i] = s.topology->find_node(s.ports[i].key.node_guid);
    links[i] = s.topology->find_port(s.ports[i].key);
    degraded[i] = links[i] && collector::link_capability(*s.topology, *links[i]).degraded();
  }
}

// Rows move when ports come or go: each port keeps what its link did; ports gone are forgotten.
void ThresholdEngine::Impl::carry_port_history(const std::vector<collector::PortKey>& keys) {
  std::vector<PortHistory> moved(keys.size());
  if (layout) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const auto it = std::lower_bound(layout->begin(), layout->end(), keys[i]);
      if (it != layout->end() && *it == keys[i]) {
        moved[i] = port_history[static_cast<size_t>(it - layout->begin())];
      }
    }
  }
  port_history = std::move(moved);
}

const std::vector<char>& ThresholdEngine::Impl::scope_of(const Rule& rule, RuleState& st,
                                                         const FabricSnapshot& s) {
  if (st.scope_layout == layout && st.scope_topology == s.topology) return st.in_scope;
  st.scope_layout = layout;
  st.scope_topology = s.topology;
  st.in_scope.assign(s.ports.size(), 0);
  for (size_t i = 0; i < s.ports.size(); ++i) {
    st.in_scope[i] = nodes[i] != nullptr && rule.scope.matches(*nodes[i], s.ports[i].key.port);
  }
  return st.in_scope;
}

bool ThresholdEngine::Impl::notify(AlertEvent e, Step& step, bool retry) {
  const bool sent = storm.admit(e, step.now, retry);
  stats.notified += sent;
  step.out.push_back({std::move(e), sent});
  return sent;
}

void ThresholdEngine::Impl::clear(const Rule& rule, const Instance& in, AlertEvent e, Step& step) {
  e.kind = EventKind::kCleared;
  e.if_index = in.if_index;
  e.node_name = in.node_name;
  describe(e, rule, in.value);
  ++stats.cleared;
  if (in.notified) storm.admit_clear();  // managers heard the raise: they hear the clear
  stats.notified += in.notified;
  step.out.push_back({std::move(e), in.notified});
}

bool ThresholdEngine::Impl::update(const Rule& rule, Instance& in, std::optional<double> value,
                                   bool holds, const AlertEvent& where, Step& step) {
  const auto now = step.now;
  if (value) in.value = *value;
  if (!holds) {
    if (!in.raised) return false;
    if (in.false_since == kNever) in.false_since = now;
    if (now - in.false_since < rule.clear_after) return true;
    clear(rule, in, where, step);
    return false;
  }
  in.false_since = kNever;
  if (in.true_since == kNever) in.true_since = now;
  const bool due_raise = !in.raised && now - in.true_since >= rule.hold_for;
  // A raise storm control withheld is tried again each interval; a sent one renotifies.
  const bool retry = in.raised && !in.notified && now - in.last_notice >= options.rate_interval;
  const bool renotify = in.raised && in.notified && rule.renotify.count() > 0 &&
                        now - in.last_notice >= rule.renotify;
  if (!due_raise && !retry && !renotify) return true;
  if (due_raise) {
    in.raised = true;
    in.raised_wall = step.wall;
    in.if_index = where.if_index;
    in.node_name = where.node_name;
    ++stats.raised;
  }
  AlertEvent e = where;
  e.kind = EventKind::kRaised;
  e.renotify = renotify;
  e.if_index = in.if_index;
  e.node_name = in.node_name;
  describe(e, rule, in.value);
  in.last_notice = now;
  in.notified = notify(std::move(e), step, retry) || (renotify && in.notified);
  return true;
}

void ThresholdEngine::Impl::evaluate_port(const Rule& rule, RuleState& st, Step& step, size_t i) {
  const PortSnapshot& p = step.snapshot.ports[i];
  // A port whose switch (or its peer's) is down or just back, or in maintenance: its alerts
  // neither raise nor clear meanwhile (switch_down tells of the one event).
  if (rule.kind != RuleKind::kSwitchDown && step.health != nullptr &&
      step.health->ports[i].flags != 0) {
    if (auto held = st.instances.find(p.key); held != st.instances.end())
      held->second.seen_round = round;
    return;
  }
  const std::optional<double> value = measure(rule, st, step, i);
  const bool holds = value && (rule.kind == RuleKind::kCounter ? rule.holds(*value) : *value > 0);
  auto found = st.instances.find(p.key);
  if (!holds && found == st.instances.end()) return;
  Instance& in = found != st.instances.end() ? found->second : st.instances[p.key];
  in.seen_round = round;
  AlertEvent where = port_event(EventKind::kRaised, p, nodes[i], step.wall);
  if (rule.kind == RuleKind::kSwitchDown) {
    where.port.port = 0;
  } else if (rule.kind == RuleKind::kHealth && step.health != nullptr) {
    if (const LinkHealth* link = step.health->find_link(p.key))
      where.remote = link->a == p.key ? link->b : link->a;
  }
  if (!update(rule, in, value, holds, where, step)) st.instances.erase(p.key);
}

void ThresholdEngine::Impl::expire_vanished(const Rule& rule, RuleState& st, Step& step) {
  for (auto it = st.instances.begin(); it != st.instances.end();) {
    if (it->second.seen_round == round) {
      ++it;
      continue;
    }
    it->second.seen_round = round;
    AlertEvent where;
    where.when = step.wall;
    where.port = it->first;
    where.node_name = collector::guid_string(it->first.node_guid);
    if (update(rule, it->second, std::nullopt, false, where, step)) {
      ++it;
    } else {
      it = st.instances.erase(it);
    }
  }
}

void ThresholdEngine::Impl::attach_histories(
    const std::vector<Rule>& rules,
    std::map<HistoryKey, std::unique_ptr<CounterHistory>> reusable) {
  histories.clear();
  std::map<HistoryKey, CounterHistory*> shared;
  for (size_t r = 0; r < rules.size(); ++r) {
    const Rule& rule = rules[r];
    if (rule.kind != RuleKind::kCounter || is_gauge(rule.source)) continue;
    const HistoryKey key{rule.counter, rule.window.count()};
    auto& h = shared[key];
    if (h == nullptr) {
      auto kept = reusable.find(key);
      histories.push_back(kept != reusable.end()
                              ? std::move(kept->second)
                              : std::make_unique<CounterHistory>(rule.source, rule.window));
      h = histories.back().get();
    }
    states[r].history = h;
  }
}

void ThresholdEngine::Impl::adopt(const std::vector<Rule>& old_rules,
                                  const std::vector<Rule>& new_rules, Step& step) {
  std::vector<RuleState> old_states = std::move(states);
  states = std::vector<RuleState>(new_rules.size());
  // Histories of a counter and window the new rules still watch are kept.
  std::map<HistoryKey, std::unique_ptr<CounterHistory>> reusable;
  for (size_t o = 0; o < old_rules.size(); ++o) {
    if (old_states[o].history == nullptr) continue;
    const HistoryKey key{old_rules[o].counter, old_rules[o].window.count()};
    for (auto& h : histories) {
      if (h.get() == old_states[o].history) reusable[key] = std::move(h);
    }
  }
  attach_histories(new_rules, std::move(reusable));
  // Instances follow their rule's name; a rule gone clears what it raised.
  std::vector<bool> kept(old_rules.size(), false);
  for (size_t r = 0; r < new_rules.size(); ++r) {
    for (size_t o = 0; o < old_rules.size(); ++o) {
      if (kept[o] || old_rules[o].name != new_rules[r].name) continue;
      states[r].instances = std::move(old_states[o].instances);
      kept[o] = true;
    }
  }
  for (size_t o = 0; o < old_rules.size(); ++o) {
    if (kept[o]) continue;
    for (const auto& [key, in] : old_states[o].instances) {
      if (!in.raised) continue;
      AlertEvent where;
      where.when = step.wall;
      where.port = key;
      clear(old_rules[o], in, where, step);
    }
  }
}

// Block by block of ports, every rule: the rows of a block are read once for every counter
// the rules watch, while they are in cache (70,000 rows do not fit in one; a pass per rule was
// memory-bound). A rule on an increase skips the ports of a block where its counter did not
// move over the window and the rule cannot hold at 0, unless it has an instance there to clear.
void ThresholdEngine::Impl::evaluate_rules(const std::vector<Rule>& rules, Step& step) {
  const FabricSnapshot& s = step.snapshot;
  std::vector<const std::vector<char>*> scopes(rules.size());
  std::vector<char> holds_at_zero(rules.size());
  for (size_t r = 0; r < rules.size(); ++r) {
    scopes[r] = &scope_of(rules[r], states[r], s);
    holds_at_zero[r] = rules[r].holds(0);
  }
  for (auto& h : histories)
    h->begin(s, layout);
  std::vector<char> skip(rules.size());
  constexpr size_t kBlock = CounterHistory::kBlock;
  for (size_t b = 0, first = 0; first < s.ports.size(); ++b, first += kBlock) {
    for (auto& h : histories)
      h->gather(s, b);
    for (size_t r = 0; r < rules.size(); ++r) {
      const CounterHistory* h = states[r].history;
      skip[r] = h != nullptr && !holds_at_zero[r] && h->unchanged(b);
    }
    for (size_t i = first; i < std::min(s.ports.size(), first + kBlock); ++i) {
      for (size_t r = 0; r < rules.size(); ++r) {
        if (!(*scopes[r])[i]) continue;
        RuleState& st = states[r];
        if (skip[r] && (st.instances.empty() || !st.instances.contains(s.ports[i].key))) continue;
        evaluate_port(rules[r], st, step, i);
      }
    }
  }
}

ThresholdEngine::ThresholdEngine(std::vector<Rule> rules, EngineOptions options)
    : rules_(std::move(rules)), impl_(std::make_unique<Impl>(options)) {
  impl_->states.resize(rules_.size());
  impl_->attach_histories(rules_, {});
}

void ThresholdEngine::replace_rules(std::vector<Rule> rules) {
  pending_rules_ = std::move(rules);
}

ThresholdEngine::~ThresholdEngine() = default;

std::vector<Decision> ThresholdEngine::evaluate(const FabricSnapshot& s,
                                                std::chrono::system_clock::time_point wall,
                                                const HealthSnapshot* health) {
  Impl& m = *impl_;
  std::vector<Decision> out;
  // Port i of a health snapshot is port i of the snapshot it was computed from.
  const bool same =
      health != nullptr && health->sequence == s.sequence && health->ports.size() == s.ports.size();
  Step step{s, same ? health : nullptr, s.published, wall, out};
  if (pending_rules_) {
    m.adopt(rules_, *pending_rules_, step);
    rules_ = std::move(*pending_rules_);
    pending_rules_.reset();
  }
  ++m.round;
  m.index_ports(s);
  m.follow_links(step);
  m.follow_sma(step);
  m.follow_subnet_managers(step);
  m.evaluate_rules(rules_, step);
  for (size_t r = 0; r < rules_.size(); ++r)
    m.expire_vanished(rules_[r], m.states[r], step);
  for (auto& h : m.histories)
    h->commit();
  for (AlertEvent& e : m.storm.tick(step.now, wall)) {
    ++m.stats.notified;
    out.push_back({std::move(e), true});
  }
  m.stats.suppressed = m.storm.suppressed();
  return out;
}

EngineStats ThresholdEngine::stats() const {
  return impl_->stats;
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
      e.if_index = in.if_index;
      e.node_name = in.node_name;
      describe(e, rules_[r], in.value);
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace ibpulse::exporters::alerts
