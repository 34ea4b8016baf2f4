#pragma once
// The 256-byte MAD layouts the engine writes and reads: a GMP (IBA 13.4.2: common header, 40
// reserved bytes for the PMA class, 192 bytes of attribute data) and a LID-routed SMP (IBA
// 14.2.1.1: common header, M_Key, 32 reserved bytes, 64 bytes of attribute data at the same
// offset).

#include <cstddef>
#include <cstdint>

#include "ibpulse/collector/mad_engine.h"

namespace ibpulse::collector {

inline constexpr size_t kMadSize = 256;
inline constexpr size_t kMadDataOffset = 64;
inline constexpr int kQp1Qkey = static_cast<int>(0x80010000u);  // umad_set_addr takes an int

void encode_request(void* mad, const MadRequest& request, uint32_t tid);

struct DecodedReply {
  uint8_t method = 0;
  uint16_t status = 0;
  uint32_t tid = 0;  // low 32 bits only
  uint16_t attribute = 0;
};
DecodedReply decode_reply(const uint8_t* mad);

enum class MadStatusKind { kOk, kBusy, kRedirect, kError };
MadStatusKind classify_status(uint16_t status);

}  // namespace ibpulse::collector
