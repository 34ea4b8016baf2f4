#pragma once
// Which layout a port's PortExtendedSpeedsCounters answers in, found as perfquery finds it
// (infiniband-diags 44): the RS-FEC layout only when all of these hold, else the older one.
//   1. The node's PMA: ClassPortInfo CapabilityMask 0x4000 (IsPMRSFECCountersSupported).
//   2. PortInfo of the port that reaches the node (port 0 on a switch): CapabilityMask 0x8000
//      (CapabilityMask2 is valid) and CapabilityMask2 0x0002 (PortInfoExtended supported).
//   3. PortInfoExtended (SMP attribute 0x33, modifier = the port): CapabilityMask bit 0
//      (IsFECModeSupported) and FECModeActive 2 (RS-FEC), 3 (Low-Latency RS-FEC) or 4
//      (RS-FEC2). perfquery 44 takes 2 and 4; 3 is an RS-FEC mode too, counting symbols the same.
// ibsim fails check 1 (its PMAs report 0x1200 and 0x1300) and check 2 (CapabilityMask2 0x30):
// its ports are decided without any SMP 0x33, which it would not answer.
//
// The answer is cached per port until the port's link comes up again (a retrain may change
// the FEC mode). PortInfoExtended is asked at the PortInfo cadence (poll.port-info-interval);
// a port is not read in either layout until it is decided. Unanswered three times, refused,
// or with SMPs off, a port falls back to the older layout (the poller says so once per node).
// `collect.ext-speeds-layout` legacy or rsfec decides every port without asking.
//
// Thread safety: a value owned by the poller thread.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "ibpulse/collector/pma.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/schema/fields.h"

namespace ibpulse::collector {

enum class ExtSpeedsLayoutMode : uint8_t { kAuto, kLegacy, kRsFec };

inline constexpr uint16_t kPortInfoExtendedAttribute = 0x33;

// What PortInfoExtended says, as far as the layout needs it.
struct PortInfoExtended {
  uint32_t capability_mask = 0;
  uint16_t fec_mode_active = 0;
};
PortInfoExtended decode_port_info_extended(std::span<const uint8_t> data);

struct LayoutDecision {
  std::optional<schema::Layout> layout;  // none: ask PortInfoExtended first
  std::string_view reason;               // why this layout (or why it must be asked)
  bool fallback = false;  // the older layout because the question went unanswered: warn
};

class ExtSpeedsLayouts {
 public:
  explicit ExtSpeedsLayouts(ExtSpeedsLayoutMode mode = ExtSpeedsLayoutMode::kAuto) : mode_(mode) {}
  ExtSpeedsLayoutMode mode() const { return mode_; }

  // The layout of `port`, on a node whose ClassPortInfo is `caps` (null: unanswered);
  // `smps`: PortInfoExtended can be asked.
  LayoutDecision decide(const PmaCapabilities* caps, const Port& port, bool smps) const;

  // PortInfoExtended of `port` answered; or failed (`refused`: an error status, given up at
  // once; else given up after kMaxAsks). Both return whether the port is now decided.
  bool answered(PortKey port, const PortInfoExtended& answer);
  bool failed(PortKey port, bool refused);
  // Its link came up again: ask again.
  void forget(PortKey port) { entries_.erase(port); }

  static constexpr uint8_t kMaxAsks = 3;

 private:
  struct Entry {
    std::optional<PortInfoExtended> answer;
    uint8_t failures = 0;
    bool refused = false;
  };
  ExtSpeedsLayoutMode mode_;
  std::unordered_map<PortKey, Entry, PortKeyHash> entries_;
};

}  // namespace ibpulse::collector
