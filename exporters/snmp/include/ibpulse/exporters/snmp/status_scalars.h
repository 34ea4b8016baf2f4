#pragma once
// IBPULSE-MIB's collector status scalars (ibpulseCollector, ibpulseMIB.1.1.1-14): the fabric's
// size, sweeps and their duration and lag, stale ports, MADs, saturated counters,
// discontinuities and snapshot age, as the daemon reports them; and its alert scalars
// (ibpulseAlerts, ibpulseMIB.1.2.1-4).
//
// Thread safety: pure functions of their arguments.

#include <chrono>
#include <cstdint>
#include <span>

#include "ibpulse/converters/pipeline_stats.h"
#include "ibpulse/exporters/snmp/mib_view.h"

namespace ibpulse::exporters::snmp {

// The statistics the scalars are read from (the table in converters/pipeline_stats.h names
// each scalar's statistic), and the threshold engine's (ibpulseActiveAlerts,
// ibpulseNotificationsSuppressed); the agent adds what it counts itself (sent, dropped).
struct CollectorStatus : converters::PipelineStatus {
  uint64_t active_alerts = 0, notifications_suppressed = 0;
};

// ibpulseAlerts: ibpulseActiveAlerts (Gauge32), ibpulseNotificationsSent,
// ibpulseNotificationsDropped, ibpulseNotificationsSuppressed (Counter64).
struct AlertScalars {
  uint64_t active = 0, sent = 0, dropped = 0, suppressed = 0;
};

// ibpulseCollector's OID (ibpulseMIB.1.1).
const Oid& collector_status_oid();

// GETNEXT over the scalars (`inclusive`: the instance itself counts); false past the last.
bool status_next(const CollectorStatus& status, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out);

// ibpulseAlerts' OID (ibpulseMIB.1.2), and GETNEXT over its scalars, as status_next().
const Oid& alert_scalars_oid();
bool alerts_next(const AlertScalars& alerts, std::span<const uint32_t> oid, bool inclusive,
                 VarBind& out);

}  // namespace ibpulse::exporters::snmp
