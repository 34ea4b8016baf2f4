#include "ibpulse/collector/scheduler.h"

#include <algorithm>
#include <set>

namespace ibpulse::collector {

std::string_view to_string(Group group) {
  switch (group) {
    case Group::kCounters:
      return "counters";
    case Group::kDetails:
      return "details";
    case Group::kIdle:
      return "idle";
  }
  return "unknown";
}

std::chrono::milliseconds Scheduler::interval_of(Group group) const {
  switch (group) {
    case Group::kCounters:
      return intervals_.counters;
    case Group::kDetails:
      return intervals_.details;
    case Group::kIdle:
      return intervals_.idle;
  }
  return intervals_.counters;
}

void Scheduler::schedule(PortKey port, Group group, Clock::time_point first) {
  const uint64_t generation = next_generation_++;
  Slot& slot = scheduled_[{port, group}];
  slot.generation = generation;
  slot.taken = false;
  heap_.push(Entry{first, generation, port, group});
}

void Scheduler::update(const Topology& topology, Clock::time_point now) {
  std::set<std::pair<PortKey, Group>> wanted;
  for (const Port& p : topology.ports) {
    if (p.lid == 0) continue;  // unreachable until the subnet manager gives it a LID
    if (p.remote) {
      wanted.insert({p.key, Group::kCounters});
      wanted.insert({p.key, Group::kDetails});
    } else {
      wanted.insert({p.key, Group::kIdle});
    }
  }
  for (auto it = scheduled_.begin(); it != scheduled_.end();) {
    it = wanted.count(it->first) ? std::next(it) : scheduled_.erase(it);
  }
  // New items are spread evenly over their interval.
  std::map<Group, std::vector<PortKey>> added;
  for (const auto& w : wanted) {
    if (!scheduled_.count(w)) added[w.second].push_back(w.first);
  }
  for (auto& [group, ports] : added) {
    // Interleave nodes (port 1 of every node, then port 2, ...): reads due together go to
    // different nodes, so per-node limits never starve the window on a switch's 64 ports.
    std::sort(ports.begin(), ports.end(), [](const PortKey& a, const PortKey& b) {
      return std::pair{a.port, a.node_guid} < std::pair{b.port, b.node_guid};
    });
    const auto interval = interval_of(group);
    for (size_t i = 0; i < ports.size(); ++i) {
      schedule(ports[i], group,
               now + interval * static_cast<int64_t>(i) / static_cast<int64_t>(ports.size()));
    }
  }
}

std::vector<Scheduler::Item> Scheduler::take_due(Clock::time_point now) {
  std::vector<Item> due;
  while (!heap_.empty() && heap_.top().due <= now) {
    const Entry e = heap_.top();
    heap_.pop();
    auto live = scheduled_.find({e.port, e.group});
    if (live == scheduled_.end() || live->second.generation != e.generation) continue;
    live->second.taken = true;
    live->second.last_due = e.due;
    due.push_back(Item{e.port, e.group});
  }
  return due;
}

bool Scheduler::done(const Item& item, Clock::time_point now) {
  auto live = scheduled_.find({item.port, item.group});
  if (live == scheduled_.end() || !live->second.taken) return false;  // dropped meanwhile
  auto next = live->second.last_due + interval_of(item.group);
  const bool late = next < now;
  if (late) next = now;
  schedule(item.port, item.group, next);
  return late;
}

std::optional<Scheduler::Clock::time_point> Scheduler::next_due() const {
  if (heap_.empty()) return std::nullopt;
  return heap_.top().due;  // may be a stale entry: waking early is harmless
}

}  // namespace ibpulse::collector
