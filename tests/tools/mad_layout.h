#pragma once
// MAD byte layout shared by the test PMA responder and its probe: the common header offsets,
// the methods and statuses they use, and big-endian field access (MAD fields are big-endian).
// Stateless; safe from any thread.

#include <cstddef>
#include <cstdint>

namespace ibpulse::tools {

inline constexpr std::size_t kMadSize = 256;
// PMA (class 0x04) attribute data starts after the 24-byte header and 40 reserved bytes.
inline constexpr std::size_t kPmaDataOffset = 64;
inline constexpr std::size_t kPmaDataSize = kMadSize - kPmaDataOffset;

// Common MAD header.
inline constexpr std::size_t kOffBaseVersion = 0;
inline constexpr std::size_t kOffMgmtClass = 1;
inline constexpr std::size_t kOffClassVersion = 2;
inline constexpr std::size_t kOffMethod = 3;
inline constexpr std::size_t kOffStatus = 4;  // 16 bits; a directed-route SMP: D bit + 15 bits
inline constexpr std::size_t kOffTid = 8;
inline constexpr std::size_t kOffAttrId = 16;
inline constexpr std::size_t kOffAttrMod = 20;

inline constexpr uint8_t kClassSmiLid = 0x01;
inline constexpr uint8_t kClassSa = 0x03;
inline constexpr uint8_t kClassPerformance = 0x04;
inline constexpr uint8_t kClassCongestion = 0x21;
inline constexpr uint8_t kClassSmiDirected = 0x81;

inline constexpr uint8_t kMethodGet = 0x01;
inline constexpr uint8_t kMethodSet = 0x02;
inline constexpr uint8_t kMethodTrap = 0x05;
inline constexpr uint8_t kMethodReport = 0x06;
inline constexpr uint8_t kMethodTrapRepress = 0x07;
inline constexpr uint8_t kMethodGetResp = 0x81;
inline constexpr uint8_t kMethodResponseBit = 0x80;

inline constexpr uint16_t kStatusOk = 0x0000;
inline constexpr uint16_t kStatusUnsupportedMethodAttr = 0x000C;  // method/attribute combination
inline constexpr uint16_t kStatusInvalidAttrValue = 0x001C;

// PMA attributes.
inline constexpr uint16_t kAttrPortSamplesControl = 0x0010;
inline constexpr uint16_t kAttrPortSamplesResult = 0x0011;
inline constexpr uint16_t kAttrPortSamplesResultExt = 0x001E;
inline constexpr uint16_t kAttrPortExtSpeedsCounters = 0x001F;

// Reads `bytes` (1..8) big-endian bytes at `p`.
inline uint64_t get_be(const uint8_t* p, std::size_t bytes) {
  uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    v = (v << 8) | p[i];
  return v;
}

// Writes the low `bytes` (1..8) bytes of `v` big-endian at `p`.
inline void put_be(uint8_t* p, std::size_t bytes, uint64_t v) {
  for (std::size_t i = bytes; i > 0; --i) {
    p[i - 1] = static_cast<uint8_t>(v & 0xff);
    v >>= 8;
  }
}

}  // namespace ibpulse::tools
