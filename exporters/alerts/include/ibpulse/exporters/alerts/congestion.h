#pragma once
// Where congestion starts, from one snapshot (docs/congestion.md): each port that waits to send
// (its PortXmitWait ratio at or above the wait ratio) is a *root* when it also sends at close to
// line rate (its receiver takes all it can, and more is queued for it: a hot spot) and a
// *victim* when it sends little (it waits because the port downstream of its peer is blocked).
// Each victim names the roots its waiting traces to: from its peer's node, over that node's
// waiting egress ports, on to their peers, until roots. A victim whose peer has no waiting
// egress port and sends no credits back itself (a stuck receiver: an HCA, or a switch whose
// ports are idle) is the root of its own tree.
//
// The topology knows links, not routes: every waiting egress of the node downstream is taken
// as a way on, so in a fat tree, whose switches spread flows over many uplinks, a victim names
// every root reachable through waiting ports, more than its own flows meet.
//
// Thread safety: classify() is a pure function; a Congestion is immutable once built.

#include <cstdint>
#include <vector>

#include "ibpulse/converters/snapshot.h"

namespace ibpulse::exporters::alerts {

struct CongestionOptions {
  double root_utilization = 0.9;    // of the link's data rate, 0..1
  double wait_ratio = 0.05;         // PortXmitWait share of the interval, 0..1
  double victim_utilization = 0.5;  // below it, a waiting port is a victim
  unsigned max_depth = 8;           // links followed downstream from a victim
};

enum class CongestionRole : uint8_t { kNone, kRoot, kVictim };

struct CongestionRoot {
  collector::PortKey key;
  uint32_t victims = 0;  // victims whose waiting traces here
  bool stuck = false;    // it waits without sending: its peer returns no credits
};

struct CongestionVictim {
  collector::PortKey key;
  std::vector<uint32_t> roots;  // indexes into Congestion::roots, ascending
};

struct Congestion {
  std::vector<CongestionRoot> roots;      // sorted by key
  std::vector<CongestionVictim> victims;  // sorted by key
  // Per snapshot port (the snapshot's order): its role.
  std::vector<CongestionRole> roles;
};

Congestion classify_congestion(const converters::FabricSnapshot& snapshot,
                               const CongestionOptions& options);

}  // namespace ibpulse::exporters::alerts
