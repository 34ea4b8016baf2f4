#pragma once
// Numbers as OCTET STRINGs, most significant octet first (IbGuid, the LID of ifPhysAddress,
// the device and vendor IDs, a capability mask): what the value functions and the
// notifications share. Private to the SNMP exporter.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string>

namespace ibpulse::exporters::snmp {

// The `bytes` low-order octets of `value`, most significant first, appended to `out`.
inline void append_big_endian(std::string& out, uint64_t value, unsigned bytes) {
  for (unsigned i = bytes; i-- > 0;)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace ibpulse::exporters::snmp
