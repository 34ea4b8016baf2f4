#pragma once
// The 256-byte MAD layouts the engine writes and reads: a GMP (IBA 13.4.2: common header, 40
// reserved bytes for the PMA class, 192 bytes of attribute data) and a LID-routed SMP (IBA
// 14.2.1.1: common header, M_Key, 32 reserved bytes, 64 bytes of attribute data at the same
// offset).

#include <array>
#include <cstddef>
#include <cstdint>

#include "ibpulse/collector/mad_engine.h"

namespace ibpulse::collector {

inline constexpr size_t kMadSize = 256;
inline constexpr size_t kMadDataOffset = 64;
inline constexpr int kQp1Qkey = static_cast<int>(0x80010000u);  // umad_set_addr takes an int
inline constexpr uint8_t kResponseBit = 0x80;                   // of the method: a response

void encode_request(void* buffer, const MadRequest& request, uint32_t tid);

// A request as the engine's pool holds it while it waits and flies: the header and the first
// kPackedData bytes of its data inline (a GET's PortSelect and CounterSelect), the rest of the
// data, where any of it is not zero (SETs), in a block of the engine's (`tail`). 72 bytes
// instead of MadRequest's 232: the engine keeps thousands of requests unsent, and at 240 bytes
// apiece their cache misses were a third of the engine's own time at 70,000 ports (perf).
inline constexpr size_t kPackedData = 24;
inline constexpr uint32_t kNoTail = ~uint32_t{0};
using DataTail = std::array<uint8_t, kMadDataSize - kPackedData>;

struct PackedRequest {
  uint64_t cookie = 0;
  uint64_t m_key = 0;
  uint32_t node = 0;
  uint32_t modifier = 0;
  uint32_t tail = kNoTail;  // the engine's block with data bytes kPackedData.., or none: zeros
  uint16_t lid = 0;
  uint16_t attribute = 0;
  MadClass mgmt_class = MadClass::kPerformance;
  MadMethod method = MadMethod::kGet;
  std::array<uint8_t, kPackedData> data{};
};

// `request` without its data past kPackedData (`tail` says where that went).
PackedRequest pack(const MadRequest& request, uint32_t tail);
// Whether `request` has data past kPackedData to keep.
bool has_data_tail(const MadRequest& request);
// The MAD of a packed request; `tail` null when it has none.
void encode_packed(void* buffer, const PackedRequest& request, const DataTail* tail, uint32_t tid);

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
