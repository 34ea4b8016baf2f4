#pragma once
// One field of an SMP attribute's data (NodeInfo, SwitchInfo, PortInfo, ...), read with
// libibmad's field table: what the collector's SMP decoders share. Private to the collector.
//
// Thread safety: pure functions.

#include <infiniband/mad.h>

#include <cstdint>

namespace ibpulse::collector::smp {

// libibmad's decoders take a non-const buffer but only read it.
inline uint32_t field(const uint8_t* data, MAD_FIELDS f) {
  return mad_get_field(const_cast<uint8_t*>(data), 0, f);
}
inline uint64_t field64(const uint8_t* data, MAD_FIELDS f) {
  return mad_get_field64(const_cast<uint8_t*>(data), 0, f);
}
inline uint8_t u8(const uint8_t* data, MAD_FIELDS f) {
  return static_cast<uint8_t>(field(data, f));
}
inline uint16_t u16(const uint8_t* data, MAD_FIELDS f) {
  return static_cast<uint16_t>(field(data, f));
}
inline bool flag(const uint8_t* data, MAD_FIELDS f) {
  return field(data, f) != 0;
}

}  // namespace ibpulse::collector::smp
