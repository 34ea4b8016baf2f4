#pragma once
// What the threshold engine tells the outside world: a rule instance raised or cleared on a
// port, a port's link going down or up (IF-MIB linkDown/linkUp), or storm control's summary.
// The SNMP agent turns these into notifications, the daemon logs them.
//
// Thread safety: value types.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "ibpulse/collector/sm_notice.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/exporters/alerts/severity.h"

namespace ibpulse::exporters::alerts {

enum class EventKind {
  kRaised,       // ibpulseThresholdCrossed (also a re-notification of a raised instance)
  kCleared,      // ibpulseThresholdCleared
  kLinkDown,     // IF-MIB linkDown
  kLinkUp,       // IF-MIB linkUp
  kRateLimited,  // ibpulseRateLimited: storm control withheld `suppressed` notifications
  kSma,          // an IB-SMA-MIB notification: the SMA trap `sma_trap` (128, 129, ...)
  kSmMaster,     // ibpulseSmMasterChanged: another subnet manager (or none) is a subnet's master
};
std::string_view to_string(EventKind kind);

// IBPULSE-MIB's IbpulseCondition: what `value` and `threshold` measure.
enum class Condition { kDelta = 1, kRatePerSecond = 2, kPercent = 3, kState = 4 };
std::string_view to_string(Condition condition);

struct AlertEvent {
  EventKind kind = EventKind::kRaised;
  bool renotify = false;  // kRaised again for an instance still raised (the rule's renotify)
  std::chrono::system_clock::time_point when{};

  // The port (all kinds but kRateLimited).
  collector::PortKey port;
  uint32_t if_index = 0;  // default-context ifIndex (0: the port has none)
  // A link health alert: the link's other end (the port is its lower end).
  std::optional<collector::PortKey> remote;
  std::string node_name;  // the node-name map's name, else its NodeDescription
  // kLinkDown/kLinkUp: IF-MIB ifAdminStatus / ifOperStatus values to send (1 up, 2 down, ...).
  uint8_t admin_status = 1, oper_status = 2;

  // kRaised/kCleared: the rule instance.
  std::string rule;     // the rule's name
  std::string counter;  // ibpulse counter name ("symbol_error"), or the state watched
  Condition condition = Condition::kDelta;
  double value = 0;      // observed: the crossing value (raised) or the last one (cleared)
  double threshold = 0;  // in the unit of `value`
  uint32_t window_seconds = 0;
  Severity severity = Severity::kWarning;

  // kRateLimited: notifications withheld during the last `window_seconds`.
  uint32_t suppressed = 0;

  // kSma: the InfiniBand trap number and what its notification carries (IB-SMA-MIB): the LID
  // of the port (a switch's: its LID), and, by trap, the capability mask (144) or the system
  // image GUID (145); 129 and 130 also `value` (the counter's increase in the window) and
  // `threshold` (the port's PortInfo threshold).
  uint16_t sma_trap = 0;
  uint16_t lid = 0;
  uint32_t capability_mask = 0;
  uint64_t system_image_guid = 0;
  // kSma from the subnet manager (a Notice it forwarded to ibpulse's subscription): every
  // field of it, for the notifications whose objects only the Notice holds (256-259). Absent
  // for what ibpulse saw itself.
  std::optional<collector::SmNotice> notice;

  // kSmMaster: the subnet (its prefix, and the local port reaching it when the daemon polls
  // several), its master SM now and before (SMInfo GUIDs; 0: none), and the new master's
  // priority and SMState (3, master; 0 when none answers as master). `port`, `node_name` and
  // `lid` are the new master's port, node and LID, or the previous master's when there is none.
  uint64_t subnet_prefix = 0;
  std::string subnet;
  uint64_t sm_guid = 0, previous_sm_guid = 0;
  uint8_t sm_priority = 0, sm_state = 0;
  // The first master seen in the subnet: no change, so never sent (Decision::notify false),
  // only logged, so that the log says which SM was master when the daemon started.
  bool first_sight = false;
};

// The SMA traps IB-SMA-MIB translates, in its notifications' order (ibSmaNotificationPrefix
// 1..10).
inline constexpr const auto& kSmaTraps = collector::kSmaTrapNumbers;

}  // namespace ibpulse::exporters::alerts
