#pragma once
// The daemon's SNMP agent, set up from its configuration: with SNMPv3 users, net-snmp's state in
// <state dir>/snmp (v1/v2c alone keep nothing);
// sysName the host's name unless configured, net-snmp's warnings in the daemon's log.
//
// Thread safety: call from the main thread; the agent runs on its own.

#include <functional>
#include <memory>

#include "daemon_config.h"
#include "ibpulse/base/result.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/agent.h"

namespace ibpulse::cli {

// Null when snmp.listen is "off". Errors name what to fix.
// IBPULSE-MIB's collector scalars from the daemon's statistics and its latest snapshot.
exporters::snmp::CollectorStatus collector_status(
    const collector::PollerStats& poller, const converters::ConverterStats& converter,
    const std::shared_ptr<const converters::FabricSnapshot>& snapshot);

// `status` feeds IBPULSE-MIB's collector scalars.
Result<std::unique_ptr<exporters::snmp::SnmpAgent>> start_snmp_agent(
    const DaemonConfig& config, const converters::SnapshotStore* snapshots,
    const exporters::alerts::HealthStore* healths,
    std::function<exporters::snmp::CollectorStatus()> status);

}  // namespace ibpulse::cli
