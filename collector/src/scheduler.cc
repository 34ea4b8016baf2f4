#include "scheduler.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ibpulse::collector {

std::string_view to_string(Group group) {
  switch (group) {
    case Group::kCounters:
      return "counters";
    case Group::kDetails:
      return "details";
    case Group::kIdle:
      return "idle";
    case Group::kPortInfo:
      return "port_info";
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
    case Group::kPortInfo:
      return intervals_.port_info;
  }
  return intervals_.counters;
}

void Scheduler::push(uint32_t slot, Clock::time_point due) {
  Slot& s = slots_[slot];
  ++s.generation;
  s.taken = false;
  heap_push(Entry{due.time_since_epoch().count(), slot, s.generation});
}

void Scheduler::heap_push(Entry e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (heap_[parent].due <= e.due) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void Scheduler::heap_pop() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return;
  size_t i = 0;
  for (;;) {
    const size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t least = first;
    const size_t end = std::min(first + 4, n);
    for (size_t c = first + 1; c < end; ++c)
      if (heap_[c].due < heap_[least].due) least = c;
    if (last.due <= heap_[least].due) break;
    heap_[i] = heap_[least];
    i = least;
  }
  heap_[i] = last;
}

namespace {

// An item of update(): a port's work item and, for the wanted ones, the port's topology index,
// for the ones scheduled already, their slot. Sorted vectors, built for the update only: a
// map kept between updates cost 64 bytes per item (13 MB at 70,000 ports, three items each).
struct Want {
  PortKey port;
  Group group = Group::kCounters;
  uint32_t index = 0;  // topology port index (wanted) or slot (scheduled)
  auto key() const { return std::pair{port, group}; }
};
bool by_key(const Want& a, const Want& b) {
  return a.key() < b.key();
}

std::vector<Want> wanted_items(const Topology& topology, const Intervals& intervals) {
  std::vector<Want> wanted;
  wanted.reserve(topology.ports.size() * 3);
  for (uint32_t i = 0; i < topology.ports.size(); ++i) {
    const Port& p = topology.ports[i];
    if (p.lid == 0) continue;  // unreachable until the subnet manager gives it a LID
    // Linked or not: a port coming up is seen at the next PortInfo read.
    if (intervals.port_info.count() > 0 && p.key.port != 0)
      wanted.push_back({p.key, Group::kPortInfo, i});
    if (p.key.port == 0) {
      wanted.push_back({p.key, Group::kCounters, i});
    } else if (p.remote) {
      wanted.push_back({p.key, Group::kCounters, i});
      wanted.push_back({p.key, Group::kDetails, i});
    } else {
      wanted.push_back({p.key, Group::kIdle, i});
    }
  }
  std::stable_sort(wanted.begin(), wanted.end(), by_key);
  // A key listed twice (a topology that lists a port twice) is scheduled once, for its first.
  wanted.erase(std::unique(wanted.begin(), wanted.end(),
                           [](const Want& a, const Want& b) { return a.key() == b.key(); }),
               wanted.end());
  return wanted;
}

using NewItems = std::vector<std::pair<PortKey, uint32_t>>;  // port, topology index

// Orders new items node by node in topology order, `run` ports of a node in a row, every
// node's first run before any node's second (scheduler.h, set_node_run). Nodes take turns so
// the per-node limit never starves the window on a switch's 64 ports; runs of a node's ports
// keep the reads to one PMA together. On the simulator's 70,000-port fabric the poller
// answered 0.84-1.00 of the raw client's MADs/s (bench/poll_bench.cc, which reads in topology
// order) with runs of 1, 0.93-0.94 with runs of 8 and 0.96-1.06 with whole switches: ibsim
// looks each MAD's destination LID up switch by switch, cheaper for one LID in a row.
void order_in_node_runs(NewItems& items, uint32_t run) {
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  struct Place {
    uint32_t round;       // the node's run it falls in
    uint32_t node_first;  // the node's first topology index: nodes in topology order
    uint32_t rank;        // its place among the node's ports
    uint32_t item;
  };
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> nodes;  // first index, ports seen
  std::vector<Place> places;
  places.reserve(items.size());
  for (uint32_t i = 0; i < items.size(); ++i) {
    auto& [first, seen] =
        nodes.try_emplace(items[i].first.node_guid, items[i].second, 0).first->second;
    places.push_back(Place{seen / run, first, seen, i});
    ++seen;
  }
  std::sort(places.begin(), places.end(), [](const Place& a, const Place& b) {
    return std::tie(a.round, a.node_first, a.rank) < std::tie(b.round, b.node_first, b.rank);
  });
  NewItems ordered;
  ordered.reserve(items.size());
  for (const Place& p : places)
    ordered.push_back(items[p.item]);
  items = std::move(ordered);
}

}  // namespace

void Scheduler::free_slot(uint32_t slot) {
  const uint32_t generation = slots_[slot].generation + 1;  // its heap entry is stale now
  slots_[slot] = Slot{};
  slots_[slot].generation = generation;
  free_slots_.push_back(slot);
}

void Scheduler::update(const Topology& topology, Clock::time_point now) {
  const std::vector<Want> wanted = wanted_items(topology, intervals_);
  std::vector<Want> scheduled;
  scheduled.reserve(items());
  for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
    if (slots_[slot].live) scheduled.push_back({slots_[slot].port, slots_[slot].group, slot});
  }
  std::sort(scheduled.begin(), scheduled.end(), by_key);
  // Both sorted: one merge finds the items that stay (their port index may have moved), the
  // ones gone and the ones new.
  std::map<Group, NewItems> added;
  auto have = scheduled.begin();
  for (const Want& w : wanted) {
    for (; have != scheduled.end() && by_key(*have, w); ++have)
      free_slot(have->index);
    if (have != scheduled.end() && have->key() == w.key()) {
      slots_[have->index].port_index = w.index;
      ++have;
    } else {
      added[w.group].push_back({w.port, w.index});
    }
  }
  for (; have != scheduled.end(); ++have)
    free_slot(have->index);
  size_t new_items = 0;
  for (const auto& [group, ports] : added)
    new_items += ports.size();
  if (new_items > free_slots_.size())
    slots_.reserve(slots_.size() + new_items - free_slots_.size());
  // New items are spread evenly over their interval.
  for (auto& [group, ports] : added) {
    order_in_node_runs(ports, node_run_);
    const auto interval = interval_of(group);
    for (size_t i = 0; i < ports.size(); ++i) {
      uint32_t slot = 0;
      if (free_slots_.empty()) {
        slot = static_cast<uint32_t>(slots_.size());
        slots_.emplace_back();
      } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
      }
      slots_[slot].live = true;
      slots_[slot].port = ports[i].first;
      slots_[slot].group = group;
      slots_[slot].port_index = ports[i].second;
      push(slot, now + interval * static_cast<int64_t>(i) / static_cast<int64_t>(ports.size()));
    }
  }
}

void Scheduler::take_due(Clock::time_point now, std::vector<Item>& out, size_t max) {
  const int64_t now_ticks = now.time_since_epoch().count();
  for (size_t taken = 0; taken < max && !heap_.empty() && heap_.front().due <= now_ticks;) {
    const Entry e = heap_.front();
    heap_pop();
    Slot& s = slots_[e.slot];
    if (!s.live || s.generation != e.generation || s.taken) continue;
    s.taken = true;
    s.last_due = Clock::time_point(Clock::duration(e.due));
    out.push_back(Item{s.port, s.group, e.slot, s.port_index, s.generation});
    ++taken;
  }
}

std::vector<Scheduler::Item> Scheduler::take_due(Clock::time_point now) {
  std::vector<Item> due;
  take_due(now, due);
  return due;
}

bool Scheduler::done(const Item& item, Clock::time_point now) {
  if (item.slot >= slots_.size()) return false;
  const Slot& s = slots_[item.slot];
  if (!s.live || s.generation != item.generation || !s.taken) return false;  // dropped meanwhile
  if (interval_of(s.group).count() == 0) {  // the group was switched off: retire the item
    free_slot(item.slot);
    return false;
  }
  auto next = s.last_due + interval_of(s.group);
  const bool late = next < now;
  if (late) next = now;
  push(item.slot, next);
  return late;
}

std::optional<Scheduler::Clock::time_point> Scheduler::next_due() const {
  if (heap_.empty()) return std::nullopt;
  // May be a stale entry: waking early is harmless.
  return Clock::time_point(Clock::duration(heap_.front().due));
}

}  // namespace ibpulse::collector
