#pragma once
// The reference the SNMP benchmark compares against: ifXTable's 19 columns and the fabric
// context's rows, served by net-snmp's own table_tdata helper (a binary_array container) the
// way mib2c would write it, with every value computed once up front. Registered in the same
// agent as ibpulse's tables, under the playpen arc, so both are walked over the same socket.
//
// Thread safety: call on the agent thread (AgentOptions::on_agent_thread).

#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/oids.h"

namespace ibpulse::bench {

// Where the reference table's entry lives: ibpulseMIB.99.1.1 (no module defines it).
const exporters::snmp::Oid& reference_table();

// Fills and registers the reference table with `snapshot`'s fabric-context rows.
void register_tdata_reference(const converters::FabricSnapshot& snapshot);

}  // namespace ibpulse::bench
