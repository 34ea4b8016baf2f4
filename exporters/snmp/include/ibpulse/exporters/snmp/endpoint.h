#pragma once
// The daemon's SNMP agent, set up from its configuration: with SNMPv3 users, net-snmp's state in
// <state dir>/snmp (v1/v2c alone keep nothing); trap sinks from their addresses;
// sysName the host's name unless configured, net-snmp's warnings in the daemon's log.
//
// Thread safety: call from the main thread; the agent runs on its own.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/agent.h"

namespace ibpulse::exporters::snmp {

struct EndpointOptions {
  AgentOptions agent;                            // listen "off": no agent
  std::vector<std::string> trap_sink_addresses;  // snmp.trap-sinks (trap_sink.h's forms)
  std::string trap_community = "public";         // of the v2c sinks
  std::filesystem::path state_dir;               // the daemon's; empty: none (no SNMPv3)
};

// Null when the agent's listen address is "off". Errors name what to fix. `status` feeds
// IBPULSE-MIB's collector scalars.
Result<std::unique_ptr<SnmpAgent>> start_snmp_agent(EndpointOptions endpoint,
                                                    const converters::SnapshotStore* snapshots,
                                                    const alerts::HealthStore* healths,
                                                    std::function<CollectorStatus()> status);

}  // namespace ibpulse::exporters::snmp
