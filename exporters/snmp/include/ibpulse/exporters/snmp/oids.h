#pragma once
// Object identifiers the agent serves. The project's own MIB hangs under one root: net-snmp's
// experimental netSnmpPlaypen arc until a private enterprise number exists, so moving it is
// this one line.
//
// Thread safety: constants and pure functions.

#include <cstdint>
#include <string>
#include <vector>

namespace ibpulse::exporters::snmp {

using Oid = std::vector<uint32_t>;

// netSnmpPlaypen itself (enterprises.netSnmp.netSnmpExperimental.9999 =
// 1.3.6.1.4.1.8072.9999.9999): IBPULSE-MIB's ibpulseMIB.
inline const Oid kIbpulseRoot = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999};
// infinibandMIB (experimental 117), as IB-SMA-MIB uses.
inline const Oid kInfinibandMib = {1, 3, 6, 1, 3, 117};
// IB-IF-MIB's ibIfMIB: infinibandMIB 2 (docs/snmp.md says why).
inline const Oid kIbIfMib = {1, 3, 6, 1, 3, 117, 2};
// IB-SMA-MIB's ibSmaMIB: infinibandMIB 3.
inline const Oid kIbSmaMib = {1, 3, 6, 1, 3, 117, 3};

// IBPULSE-MIB's ibpulsePorts (ibpulseObjects 4) and the entry of its ibpulsePortTable, whose
// rows augment ifEntry in every context.
inline const Oid kIbpulsePorts = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 4};
inline const Oid kIbpulsePortEntry = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 4, 1, 1};
inline const Oid kIbpulseLinkHealthEntry = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 4, 2, 1};
// IBPULSE-MIB's ibpulseSm (ibpulseObjects 5): the subnet manager MIB draft's node and switch
// tables, in the default context.
inline const Oid kIbpulseSm = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 5};
inline const Oid kIbpulseSmNodeEntry = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 5, 1, 1};
inline const Oid kIbpulseSmSwitchEntry = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 5, 2, 1};
inline const Oid kIbpulseSmInfoEntry = {1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 1, 5, 3, 1};

// Dotted-decimal text, as snmpwalk prints with -On ("1.3.6.1...").
std::string to_string(const Oid& oid);

}  // namespace ibpulse::exporters::snmp
