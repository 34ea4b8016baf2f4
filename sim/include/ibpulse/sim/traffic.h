#pragma once
// Synthetic traffic and errors for a simulated fabric, driven through ibsim's console.
//
// PerformanceSet writes absolute values while every MAD crossing a link also moves the
// counters, so each tick reads the current values (libibmad, in this process) and writes
// current + delta: a counter never steps backwards. Both ends of a link move together (one
// side's transmit is the other side's receive), in PortCounters (32 bits, latching as ibsim
// clamps) and PortCountersExtended (64 bits) alike.
//
// Congestion scenarios (a hot spot, a stuck receiver) route every other HCA port toward one
// HCA port by the shortest path and make the switch port feeding it the ROOT of a congestion
// tree and every other egress port on those paths a VICTIM: both wait (PortXmitWait, and its
// VL 0 copy) and transmit at fixed shares of their link's data rate, while the other ports
// keep `utilization`. The model and its tie-break: sim/src/traffic_congestion.h.
//
// Thread safety: run_traffic blocks its caller; `stop` may be set from any thread or a signal
// handler.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ibpulse/sim/fabric.h"
#include "ibpulse/sim/port_spec.h"

namespace ibpulse::sim {

struct TrafficOptions {
  double utilization = 0;  // 0..1 of each link's data rate, both directions
  // Only the ports of these nodes when not empty: on a fabric of several parts, those of the
  // part this process is attached in (its LIDs reach no other part).
  std::vector<std::string> nodes;
  std::optional<double> duration_s;  // run until stopped when unset
  std::vector<ErrorSpec> errors;
  unsigned packet_bytes = 2048;          // average packet size: packets = bytes / this
  std::chrono::milliseconds tick{1000};  // a tick takes longer when the fabric is large

  // Congestion: at most one of these. NODE (by name or 0x node/port GUID) must be an HCA;
  // port 0 picks its lowest-numbered active linked port.
  std::optional<PortSpec> hot_spot;  // root sends at 100%, victims at victim_utilization
  std::optional<PortSpec> stuck;     // root sends nothing, victims at victim_utilization
  double wait_ratio = 0.5;           // 0..1: share of the time root and victims wait
  double victim_utilization = 0.2;   // 0..1 of a victim's link data rate
  // PortXmitWait's tick, which the library cannot know (schema::kDefaultXmitWaitTickNs is the
  // ibpulse default; this library depends on base only, so the caller passes it).
  double xmit_wait_tick_ns = 4;
};

// What one port was given, in the units the counters use.
struct PortInjection {
  std::string node;
  unsigned port = 0;
  uint64_t xmit_data_dwords = 0;
  uint64_t rcv_data_dwords = 0;
  uint64_t xmit_pkts = 0;
  uint64_t rcv_pkts = 0;
  std::map<std::string, uint64_t> errors;  // "PortCounters.SymbolErrorCounter" -> count
  std::vector<std::string> latched;        // 32/16-bit fields that reached all ones
  uint64_t xmit_wait = 0;                  // PortXmitWait ticks (congestion scenarios)
  std::string role;                        // "root", "victim" or "" (congestion scenarios)
};

struct TrafficReport {
  unsigned ticks = 0;
  double seconds = 0;
  size_t console_lines = 0;
  std::vector<PortInjection> ports;
};

// Data rate of a link in bytes/s from ibsim's width and signalling speed ("4x", "2.5G"),
// after line encoding (SDR lane = 2 Gb/s of data).
std::optional<double> link_bytes_per_second(std::string_view width, std::string_view speed);

using TickFn = std::function<void(const TrafficReport&)>;

// Needs this process to be a client of the fabric (see client_env).
Result<TrafficReport> run_traffic(const FabricState& fabric, const TrafficOptions& options,
                                  const std::atomic<bool>& stop, const TickFn& on_tick = {});

// Adds `by` to one counter of one port (read, then PerformanceSet current + by); returns the
// value ibsim reports it set (clamped at the field's width, as hardware latches).
Result<uint64_t> bump_counter(const FabricState& fabric, const PortSpec& spec,
                              std::string_view attribute, std::string_view field, uint64_t by);

}  // namespace ibpulse::sim
