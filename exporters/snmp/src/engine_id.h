#pragma once
// The agent's SNMPv3 engineID and snmpEngineBoots, kept in the daemon's own files so they
// survive restarts: managers key users and localized keys by the ID and refuse messages whose
// boots go backwards (RFC 3414), and net-snmp 5.9 drops the ID it persisted itself when it
// reads it back, which also resets its boots to 1. Private to the SNMP exporter.
//
// Thread safety: call from one thread (the agent's, at start).

#include <cstdint>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::snmp::detail {

// The engineID as "0x..." hex: read from `dir`/engine-id, or made (net-snmp's enterprise 8072,
// format 5 "octets", 16 random octets) and written there atomically the first time.
Result<std::string> load_or_create_engine_id(const std::string& dir);

// RFC 3414's ceiling: an engine at it stays there until it gets a new engineID.
inline constexpr uint32_t kMaxEngineBoots = 2147483647;

// This start's snmpEngineBoots for `engine_id`: one more than `dir`/engine-boots recorded for
// the same ID, 1 for a new ID or no record; written back atomically before it is used.
Result<uint32_t> next_engine_boots(const std::string& dir, const std::string& engine_id);

}  // namespace ibpulse::exporters::snmp::detail
