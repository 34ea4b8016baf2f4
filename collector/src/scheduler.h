#pragma once
// Decides what is due: every port has a work item per attribute group, each with its own
// interval, first due times spread over the interval so reads never come in bursts. Ports
// without a link are read at a slow interval and still reported.
//
// Thread safety: belongs to the poller thread. Private to the collector (the poller's).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "ibpulse/collector/intervals.h"
#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

enum class Group : uint8_t {
  kCounters,  // PortCounters (+ PortCountersExtended where advertised)
  kDetails,   // error/discard details, flow control, per-VL, extended speeds
  kIdle,      // a port without a link: PortCounters only, slowly
  kPortInfo,  // PortInfo (SMP): state, width, speed between discoveries
};
std::string_view to_string(Group group);

class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;

  // A due read. `slot` and `generation` let done() find it without a lookup; `port_index`
  // is the port's index in the topology of the last update().
  struct Item {
    PortKey port;
    Group group = Group::kCounters;
    uint32_t slot = 0;
    uint32_t port_index = 0;
    uint32_t generation = 0;
  };

  explicit Scheduler(Intervals intervals) : intervals_(intervals) {}

  // Adds ports not yet scheduled, drops ports that are gone, moves ports between the idle and
  // active groups when their link changed; ports that stayed keep their schedule. Switch
  // port 0 (present only when its counters were asked for) is read with the counters group.
  void update(const Topology& topology, Clock::time_point now);

  // Appends the items due at `now` to `out`, the longest due first, at most `max` of them (the
  // others stay due). A taken item is not due again until done() says its reads completed, so
  // a fabric slower than the intervals never piles up reads.
  void take_due(Clock::time_point now, std::vector<Item>& out, size_t max = SIZE_MAX);
  std::vector<Item> take_due(Clock::time_point now);

  // The reads of a taken item completed: it is next due one interval after its last due time,
  // or at once when that has passed (a slow fabric runs sweeps back to back, never bunched).
  // Returns true when the item was late.
  bool done(const Item& item, Clock::time_point now);

  std::optional<Clock::time_point> next_due() const;

  // New items are spread over their interval node by node, in topology order: `ports` ports
  // of one node in a row, then the next node's, every node's first run before any second one
  // (1, the default: port 1 of every node, then port 2, ...). Runs keep a node's reads
  // together, so the PMA (and the simulator) answering them works from warm state; short
  // enough, the reads due together still span the window / per-node nodes that fill the
  // window (the poller's choice: poller.cc). Applies to items added from the next update() on.
  void set_node_run(uint32_t ports) { node_run_ = std::max<uint32_t>(ports, 1); }

  void set_intervals(Intervals intervals) { intervals_ = intervals; }
  const Intervals& intervals() const { return intervals_; }
  size_t items() const { return slots_.size() - free_slots_.size(); }

 private:
  std::chrono::milliseconds interval_of(Group group) const;
  void push(uint32_t slot, Clock::time_point due);

  // A heap entry: `due` in steady-clock ticks, `generation` the slot's when it was pushed (a
  // slot's generation moves on at each push and when it is freed: entries left behind are
  // stale and skipped). 32 bits of generation per slot wrap only after 4 billion pushes of
  // one slot, while a stale entry lives at most one interval.
  struct Entry {
    int64_t due;
    uint32_t slot;
    uint32_t generation;
  };
  struct Slot {
    PortKey port;
    uint32_t port_index = 0;
    uint32_t generation = 0;
    Group group = Group::kCounters;
    bool live = false;  // an item is scheduled in it (false: on the free list)
    bool taken = false;
    Clock::time_point last_due{};
  };
  void free_slot(uint32_t slot);

  // A 4-ary min-heap on `due`: half the levels of std::priority_queue's binary heap, and 16
  // bytes an entry instead of 24. Its sift-downs through ~210,000 entries (70,000 ports, three
  // items each) were all of take_due's time, waiting on memory (perf).
  void heap_push(Entry e);
  void heap_pop();

  Intervals intervals_;
  uint32_t node_run_ = 1;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<Entry> heap_;
};

}  // namespace ibpulse::collector
