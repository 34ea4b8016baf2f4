#include "ibpulse/converters/vl_traffic.h"

#include <algorithm>

#include "ibpulse/schema/attributes.h"

namespace ibpulse::converters {
namespace {

constexpr uint64_t kPacketOverhead = 4;  // POH, as in the port octet formulas
constexpr uint16_t kPerVlFlag = 0x4000;  // per-VL CounterSelect codes: 0x40nn | vl << 8

struct VlSelect {
  size_t vl = 0;
  VlColumn column = VlColumn::kXmitData;
};

// The per-VL traffic selects of PortSamplesControl: 0x4001 XmitDataVLn, 0x4002 RcvDataVLn,
// 0x4003 XmitPktVLn, 0x4004 RcvPktVLn, VL in bits 8-11.
bool decode(uint16_t select, VlSelect& out) {
  if ((select & 0xF000) != kPerVlFlag) return false;
  const unsigned code = select & 0xFF;
  if (code < 1 || code > 4) return false;
  out.vl = select >> 8 & 0xF;
  out.column = static_cast<VlColumn>(code - 1);
  return true;
}

}  // namespace

uint64_t& VlCounts::operator[](VlColumn column) {
  switch (column) {
    case VlColumn::kXmitData:
      return xmit_octets;
    case VlColumn::kRcvData:
      return rcv_octets;
    case VlColumn::kXmitPackets:
      return xmit_packets;
    case VlColumn::kRcvPackets:
      break;
  }
  return rcv_packets;
}

double PortVlTraffic::coverage() const {
  if (observed.count() <= 0) return 0;
  return std::min(1.0,
                  static_cast<double>(covered.count()) / static_cast<double>(observed.count()));
}

uint64_t PortVlTraffic::out_octets(size_t v) const {
  return vl[v].xmit_octets + vl[v].xmit_packets * kPacketOverhead;
}

uint64_t PortVlTraffic::in_octets(size_t v) const {
  return vl[v].rcv_octets + vl[v].rcv_packets * kPacketOverhead;
}

bool add_vl_sample(PortVlTraffic& t, const collector::RawSample& s) {
  const bool wide = s.attribute == schema::Attribute::kPortSamplesResultExtended;
  bool any = false;
  for (size_t i = 0; i < s.field_count && i < s.selects.size(); ++i) {
    VlSelect sel;
    if (!decode(s.selects[i], sel)) continue;
    any = true;
    const bool data = sel.column == VlColumn::kXmitData || sel.column == VlColumn::kRcvData;
    t.vl[sel.vl][sel.column] += s.values[i] * (data ? 4 : 1);
    t.sampled |= uint64_t{1} << (sel.vl * 4 + static_cast<size_t>(sel.column));
    if (!wide && s.values[i] == 0xFFFFFFFFull) ++t.saturated;
  }
  if (!any) return false;
  const auto length = std::chrono::duration_cast<std::chrono::nanoseconds>(s.sampled_for);
  t.covered += length;
  // The time since the previous sample ended; the first (after a start) counts its own length.
  const bool follows =
      t.last_end != std::chrono::steady_clock::time_point{} && s.received > t.last_end;
  t.observed += follows
                    ? std::chrono::duration_cast<std::chrono::nanoseconds>(s.received - t.last_end)
                    : length;
  t.last_end = s.received;
  ++t.samples;
  return true;
}

}  // namespace ibpulse::converters
