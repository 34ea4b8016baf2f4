#include "mad_codec.h"

#include <cstring>

#include "big_endian.h"

namespace ibpulse::collector {
namespace {

using wire::get16;
using wire::get32;
using wire::put16;
using wire::put32;
using wire::put64;

constexpr uint8_t kBaseVersion = 1;
constexpr uint8_t kClassVersion = 1;
constexpr size_t kSmpMKeyOffset = 24;  // LID-routed SMP: M_Key after the common header

// A zeroed MAD's header.
void put_header(uint8_t* mad, MadClass mgmt_class, MadMethod method, uint16_t attribute,
                uint32_t modifier, uint64_t m_key, uint32_t tid) {
  mad[0] = kBaseVersion;
  mad[1] = static_cast<uint8_t>(mgmt_class);
  mad[2] = kClassVersion;
  mad[3] = static_cast<uint8_t>(method);
  put32(mad + 12, tid);  // bytes 8-11 (TID high) belong to the kernel / umad2sim
  put16(mad + 16, attribute);
  put32(mad + 20, modifier);
  if (mgmt_class == MadClass::kSubnetLid) put64(mad + kSmpMKeyOffset, m_key);
}

}  // namespace

void encode_request(void* buffer, const MadRequest& request, uint32_t tid) {
  auto* mad = static_cast<uint8_t*>(buffer);
  std::memset(mad, 0, kMadSize);
  put_header(mad, request.mgmt_class, request.method, request.attribute, request.modifier,
             request.m_key, tid);
  std::memcpy(mad + kMadDataOffset, request.data.data(), kMadDataSize);
}

bool has_data_tail(const MadRequest& request) {
  static constexpr DataTail kZeros{};
  return std::memcmp(request.data.data() + kPackedData, kZeros.data(), kZeros.size()) != 0;
}

PackedRequest pack(const MadRequest& request, uint32_t tail) {
  PackedRequest p;
  p.cookie = request.cookie;
  p.m_key = request.m_key;
  p.node = request.node;
  p.modifier = request.modifier;
  p.tail = tail;
  p.lid = request.lid;
  p.attribute = request.attribute;
  p.mgmt_class = request.mgmt_class;
  p.method = request.method;
  std::memcpy(p.data.data(), request.data.data(), kPackedData);
  return p;
}

void encode_packed(void* buffer, const PackedRequest& request, const DataTail* tail, uint32_t tid) {
  auto* mad = static_cast<uint8_t*>(buffer);
  std::memset(mad, 0, kMadSize);
  put_header(mad, request.mgmt_class, request.method, request.attribute, request.modifier,
             request.m_key, tid);
  std::memcpy(mad + kMadDataOffset, request.data.data(), kPackedData);
  if (tail != nullptr) std::memcpy(mad + kMadDataOffset + kPackedData, tail->data(), tail->size());
}

DecodedReply decode_reply(const uint8_t* mad) {
  return DecodedReply{mad[3], get16(mad + 4), get32(mad + 12), get16(mad + 16)};
}

MadStatusKind classify_status(uint16_t status) {
  // Bit 0: busy; bit 1: redirect required; bits 2-4: invalid field code.
  if ((status & 0x1c) != 0) return MadStatusKind::kError;
  if ((status & 0x02) != 0) return MadStatusKind::kRedirect;
  if ((status & 0x01) != 0) return MadStatusKind::kBusy;
  return MadStatusKind::kOk;
}

}  // namespace ibpulse::collector
