#pragma once
// The MAD engine's bookkeeping (mad_engine.cc): its request pool, per-node queues, flights and
// timer queues, kept small and index-linked so that nothing is allocated per MAD. Private to
// the collector.
//
// Thread safety: value types, owned by one engine.

#include <chrono>
#include <cstdint>

#include "mad_codec.h"
#include "umad_port.h"

namespace ibpulse::collector::engine_detail {

using Clock = UmadPort::Clock;
constexpr unsigned kMaxBackoffShift = 3;  // a retry waits at most 8 x the first timeout

// Requests live in a pool, packed (mad_codec.h), and travel by index: queues and flights stay
// small and nothing of 200+ bytes is copied or allocated per MAD.
using PendingId = uint32_t;
constexpr PendingId kNoPending = ~PendingId{0};

struct Pending {
  PackedRequest request;
  unsigned attempts = 0;
  PendingId next = kNoPending;  // the next request queued for the same node
};
static_assert(sizeof(Pending) <= 72, "the pool's requests stay small (mad_codec.h)");

// A node's queued requests, in order, linked through the pool: a std::deque per node kept a
// 512-byte block for each of them (7.6 MB on a fabric of 13,000 nodes).
struct NodeQueue {
  PendingId head = kNoPending, tail = kNoPending;
  bool empty() const { return head == kNoPending; }
};

struct Flight {
  PendingId pending = 0;
  Clock::time_point deadline;
  uint32_t tid = 0;
  bool used = false;
};

constexpr unsigned kSlotBits = 13;  // windows up to 8192
constexpr uint32_t kSlotMask = (1u << kSlotBits) - 1;

// A node with requests it may send, keyed by the order of its oldest one.
struct ReadyNode {
  uint64_t order;
  uint32_t node;
  bool operator>(const ReadyNode& o) const { return order > o.order; }
};

struct Timer {
  Clock::time_point deadline;
  uint32_t tid;
};

// An attempt's timeout depends only on its backoff level, and the clock only goes forward:
// timers started at one level end in the order they started, so a FIFO per level is a
// timer queue with O(1) start and expiry. (A heap of every flight's timer, answered ones
// included until their deadline, was a third of the engine's own samples in perf at 190,000
// MADs/s.)
constexpr unsigned kBackoffLevels = kMaxBackoffShift + 1;

}  // namespace ibpulse::collector::engine_detail
