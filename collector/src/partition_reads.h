#pragma once
// The P_Key tables to read after a discovery (partitions.h): every linked port of the poller's
// nodes with a table, and each switch's port 0, queued at each discovery and read a few ports at
// a time (kPortsInFlight, all of a port's blocks together), apart from the counter reads so
// that a discovery's worth of tables never crowds the engine's window. A table whose every
// block came back is finished; one with a block that failed is dropped until the next
// discovery (counted: the port keeps the table read before).
//
// Thread safety: plain data; the poller's thread.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "ibpulse/collector/partitions.h"

namespace ibpulse::collector {

class PartitionReads {
 public:
  static constexpr size_t kPortsInFlight = 4;

  struct Ask {
    PortKey port;
    uint16_t lid = 0;  // the port's (a switch's: port 0's)
    uint32_t modifier = 0;
    unsigned block = 0;
  };

  // Queues the tables of `topology`'s ports (those not queued or in flight already).
  void plan(const Topology& topology);
  // The next SMP to send; nothing when kPortsInFlight ports are being read and their blocks
  // are all out, or nothing waits.
  std::optional<Ask> next();
  void answered(PortKey port, unsigned block, std::span<const uint8_t> data);
  void failed(PortKey port);
  // The tables finished since the last call, sorted by port.
  std::vector<PortPartitions> take_finished();
  bool idle() const { return queue_.empty() && reading_.empty(); }

  uint64_t answers() const { return answers_; }
  uint64_t failures() const { return failures_; }

 private:
  struct Target {
    PortKey port;
    uint16_t lid = 0;
    NodeKind kind = NodeKind::kCa;
    uint16_t capacity = 0;
  };
  struct Reading {
    Target target;
    unsigned blocks = 0;  // to read
    unsigned sent = 0;
    unsigned done = 0;
    bool failed = false;
    PortPartitions table;
  };
  void queue(const Target& t);
  void finish_if_done(std::map<PortKey, Reading>::iterator it);

  std::deque<Target> queue_;
  std::set<PortKey> queued_;
  std::map<PortKey, Reading> reading_;
  std::vector<PortPartitions> finished_;
  uint64_t answers_ = 0;
  uint64_t failures_ = 0;
};

}  // namespace ibpulse::collector
