#include "ibpulse/collector/sm_notice.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <set>

#include "big_endian.h"
#include "ibpulse/base/number.h"

namespace ibpulse::collector {
namespace {

using wire::get16;
using wire::get24;
using wire::get32;
using wire::get64;

constexpr size_t kDetails = 10;    // DataDetails: from byte 10 of the Notice
constexpr size_t kIssuerGid = 64;  // IssuerGID: the last 16 bytes

Gid gid_at(const uint8_t* p) {
  Gid g;
  std::memcpy(g.data(), p, g.size());
  return g;
}

// 257 and 258 (and, shifted by two bytes, 259): SL in the high nibble, QP1 in the low 24 bits.
void sl_and_queue_pairs(const uint8_t* p, SmNotice& n) {
  n.sl = static_cast<uint8_t>(p[0] >> 4);
  n.qp1 = get24(p + 1);
  n.qp2 = get24(p + 5);
}

void decode_details(const uint8_t* d, SmNotice& n) {
  switch (n.trap) {
    case 128:
      n.lid = get16(d);
      break;
    case 129:
    case 130:
    case 131:
      n.lid = get16(d + 2);
      n.port = d[4];
      break;
    case 144:
      n.lid = get16(d + 2);
      n.capability_mask = get32(d + 6);
      break;
    case 145:
      n.lid = get16(d + 2);
      n.system_image_guid = get64(d + 6);
      break;
    case 256:
      n.lid = get16(d + 2);
      n.method = d[6];
      n.attribute_id = get16(d + 8);
      n.attribute_modifier = get32(d + 10);
      n.key = get64(d + 14);
      break;
    case 257:
    case 258:
      n.lid = get16(d + 2);
      n.lid2 = get16(d + 4);
      n.key = get32(d + 6);
      sl_and_queue_pairs(d + 10, n);
      n.gid1 = gid_at(d + 18);
      n.gid2 = gid_at(d + 34);
      break;
    case 259:
      n.data_valid = get16(d);
      n.lid = get16(d + 2);
      n.lid2 = get16(d + 4);
      n.key = get16(d + 6);
      sl_and_queue_pairs(d + 8, n);
      n.gid1 = gid_at(d + 16);
      n.gid2 = gid_at(d + 32);
      n.switch_lid = get16(d + 48);
      n.port = d[50];
      break;
    default:
      break;
  }
}

}  // namespace

bool is_sma_trap(uint16_t trap) {
  return std::find(std::begin(kSmaTrapNumbers), std::end(kSmaTrapNumbers), trap) !=
         std::end(kSmaTrapNumbers);
}

Result<SmNotice> decode_notice(std::span<const uint8_t> notice) {
  if (notice.size() < kNoticeSize) return Err("a Notice of {} bytes, not 80", notice.size());
  const uint8_t* p = notice.data();
  if ((p[0] & 0x80) == 0) return Err("a vendor-specific notice (vendor 0x{:06x})", get24(p + 1));
  SmNotice n;
  n.type = p[0] & 0x7f;
  n.producer_type = get24(p + 1);
  n.trap = get16(p + 4);
  n.issuer_lid = get16(p + 6);
  n.issuer_gid = gid_at(p + kIssuerGid);
  if (!is_sma_trap(n.trap)) return Err("trap {}, which IB-SMA-MIB does not translate", n.trap);
  decode_details(p + kDetails, n);
  return n;
}

Result<std::vector<uint16_t>> parse_sma_traps(std::string_view text) {
  std::set<uint16_t> traps;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    text = comma == std::string_view::npos ? "" : text.substr(comma + 1);
    if (word == "all") {
      traps.insert(std::begin(kSmaTrapNumbers), std::end(kSmaTrapNumbers));
    } else if (word != "none") {
      const auto n = parse_unsigned(word, 0, 65535);
      if (!n || !is_sma_trap(static_cast<uint16_t>(*n))) {
        return Err(
            "'{}' is not an SMA trap IB-SMA-MIB translates (128, 129, 130, 131, 144, 145, 256, "
            "257, 258, 259), all or none",
            word);
      }
      traps.insert(static_cast<uint16_t>(*n));
    }
  }
  return std::vector<uint16_t>(traps.begin(), traps.end());
}

}  // namespace ibpulse::collector
