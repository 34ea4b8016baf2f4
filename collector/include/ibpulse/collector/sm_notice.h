#pragma once
// A Notice the subnet manager forwarded to ibpulse's InformInfo subscription (an SA Report,
// sm_subscription.h), decoded: the InfiniBand trap it carries and the fields of its
// DataDetails that IB-SMA-MIB's notifications name.
//
// The Notice attribute (80 bytes): IsGeneric (1 bit), Type (7), ProducerType (24),
// TrapNumber (16), IssuerLID (16), NoticeToggle (1), NoticeCount (15), DataDetails (54 bytes,
// from byte 10), IssuerGID (16 bytes, from byte 64). The DataDetails layouts, by trap
// (byte offsets within DataDetails):
//   128       switch LID 0-1
//   129-131   LID 2-3, port 4
//   144       LID 2-3, capability mask 6-9
//   145       LID 2-3, system image GUID 6-13
//   256       LID 2-3, DR SLID 4-5, method 6, attribute ID 8-9, modifier 10-13, M_Key 14-21
//   257, 258  LID1 2-3, LID2 4-5, key 6-9, SL (high 4 bits of 10) and QP1 (low 24 bits of
//             10-13), QP2 (low 24 bits of 14-17), GID1 18-33, GID2 34-49
//   259       DataValid 0-1, LID1 2-3, LID2 4-5, P_Key 6-7, SL and QP1 8-11, QP2 12-15,
//             GID1 16-31, GID2 32-47, switch LID 48-49, port 50
//
// Thread safety: value types and pure functions.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::collector {

inline constexpr size_t kNoticeSize = 80;

// The generic traps IB-SMA-MIB translates, in its notifications' order.
inline constexpr uint16_t kSmaTrapNumbers[] = {128, 129, 130, 131, 144, 145, 256, 257, 258, 259};
bool is_sma_trap(uint16_t trap);

using Gid = std::array<uint8_t, 16>;

struct SmNotice {
  uint16_t trap = 0;
  uint8_t type = 0;            // 0 fatal, 1 urgent, 2 security, 3 subnet management, 4 info
  uint32_t producer_type = 0;  // the issuer's node type: 1 CA, 2 switch, 3 router, 4 SM
  uint16_t issuer_lid = 0;
  Gid issuer_gid{};

  // The LID the trap is about: 128 the switch's, 129-145 and 256 the port's, 257-259 LID1.
  uint16_t lid = 0;
  uint8_t port = 0;                 // 129-131, 259 (the switch's external port)
  uint32_t capability_mask = 0;     // 144
  uint64_t system_image_guid = 0;   // 145
  uint64_t key = 0;                 // 256 the M_Key; 257 the P_Key; 258 the Q_Key; 259 the P_Key
  uint8_t method = 0;               // 256
  uint16_t attribute_id = 0;        // 256
  uint32_t attribute_modifier = 0;  // 256
  uint16_t lid2 = 0;                // 257-259
  uint8_t sl = 0;                   // 257-259
  uint32_t qp1 = 0, qp2 = 0;        // 257-259
  Gid gid1{}, gid2{};               // 257-259
  uint16_t switch_lid = 0;          // 259
  uint16_t data_valid = 0;          // 259: which fields hold (bit 0 LID1 ... 7 GID2)
};

// The Notice `notice` (kNoticeSize bytes) decoded; an error when it is not one IB-SMA-MIB
// translates: too short, a vendor notice, or another trap number (the error says which).
Result<SmNotice> decode_notice(std::span<const uint8_t> notice);

// The trap numbers in `text`: "all" (the ten), "none", or a comma-separated list of them.
Result<std::vector<uint16_t>> parse_sma_traps(std::string_view text);

}  // namespace ibpulse::collector
