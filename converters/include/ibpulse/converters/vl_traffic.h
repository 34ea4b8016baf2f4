#pragma once
// Per-VL traffic (IB-IF-MIB ibIfVLTrafficTable) from PortSamples results. PMAs have no per-VL
// traffic counters to poll (PortVLOpData/PortVLOpPackets count one opcode), so the only source
// is a sample: the port counts XmitDataVLn / RcvDataVLn / XmitPktVLn / RcvPktVLn from zero for
// the sample's interval. Each finished sample's counts are added to 64-bit totals; the totals
// therefore cover only the sampled fraction of the time, which is reported beside them.
//
// Formulas (the draft's, with one correction): ibIfVLOutOctets = XmitDataVL x 4 + XmitPktVL x
// POH; ibIfVLInOctets = RcvDataVL x 4 + RcvPktVL x POH (the draft multiplies PortXmitPktsVL
// here: receive packets are the consistent choice); ibIfVLOutPkts = XmitPktVL; ibIfVLInPkts =
// RcvPktVL. Where the packet counts were not sampled, the POH terms are 0 and `packets_sampled`
// says so.
//
// Thread safety: none; the converter thread owns it. Snapshots share the per-port blocks.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>

#include "ibpulse/collector/pma.h"

namespace ibpulse::converters {

inline constexpr size_t kVirtualLanes = 16;  // VL0-14 data, VL15 management
using collector::PortKeyHash;

enum class VlColumn : uint8_t { kXmitData, kRcvData, kXmitPackets, kRcvPackets };

struct VlCounts {
  uint64_t xmit_octets = 0, rcv_octets = 0;  // data dwords x 4
  uint64_t xmit_packets = 0, rcv_packets = 0;

  uint64_t& operator[](VlColumn column);
  uint64_t operator[](VlColumn column) const {
    return const_cast<VlCounts&>(*this)[column];  // NOLINT: one table for both
  }
};

struct PortVlTraffic {
  std::array<VlCounts, kVirtualLanes> vl{};
  // Bit (vl * 4 + column): that VL's column was in at least one sample.
  uint64_t sampled = 0;
  uint64_t samples = 0;                  // finished samples added
  uint64_t saturated = 0;                // 32-bit results at all ones: counts beyond them were lost
  std::chrono::nanoseconds covered{0};   // summed sample lengths
  std::chrono::nanoseconds observed{0};  // time the samples were spread over (see coverage())
  std::chrono::steady_clock::time_point last_end{};  // not saved: restarts after a restart

  bool has(size_t vl_index, VlColumn column) const {
    return sampled >> (vl_index * 4 + static_cast<size_t>(column)) & 1;
  }
  bool has_vl(size_t vl_index) const { return (sampled >> (vl_index * 4) & 0xF) != 0; }
  // The fraction of the observed time the samples covered (0..1).
  double coverage() const;

  // IB-IF-MIB values of one VL.
  uint64_t out_octets(size_t vl_index) const;
  uint64_t in_octets(size_t vl_index) const;
  bool packets_sampled(size_t vl_index) const {
    return has(vl_index, VlColumn::kXmitPackets) && has(vl_index, VlColumn::kRcvPackets);
  }
};

// Adds a PortSamplesResult(Extended) sample to `traffic`. Returns false (and adds nothing)
// when it holds no per-VL traffic select.
bool add_vl_sample(PortVlTraffic& traffic, const collector::RawSample& sample);

}  // namespace ibpulse::converters
