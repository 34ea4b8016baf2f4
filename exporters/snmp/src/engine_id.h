#pragma once
// The agent's SNMPv3 engineID, kept in the daemon's own file so it survives restarts: managers
// key users and localized keys by it (RFC 3414), and net-snmp 5.9 drops the ID it persisted
// itself when it reads it back. Private to the SNMP exporter.
//
// Thread safety: call from one thread (the agent's, at start).

#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::snmp::detail {

// The engineID as "0x..." hex: read from `dir`/engine-id, or made (net-snmp's enterprise 8072,
// format 5 "octets", 16 random octets) and written there atomically the first time.
Result<std::string> load_or_create_engine_id(const std::string& dir);

}  // namespace ibpulse::exporters::snmp::detail
