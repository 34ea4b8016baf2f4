#pragma once
// The model a FakeMadEngine answers from: nodes with a PMA each, their ports' counters and
// links, and a record of every MAD that reached them.
//
// What a node models:
// - ClassPortInfo (0x01): CapabilityMask at bytes 2-3, CapabilityMask2 in the top 27 bits of
//   bytes 4-7 (RespTimeValue 0).
// - Every attribute with schema fields (PortCounters, PortCountersExtended, the error details,
//   flow control, per-VL, PortExtendedSpeedsCounters): one true 64-bit value per schema counter
//   per port; each field is encoded with the schema's offset and width from its counter's
//   value, a narrow field stopping at all ones (latched) as hardware does. A field whose
//   capability the node's ClassPortInfo does not advertise reads 0. PortExtendedSpeedsCounters
//   answers in the node's `pesc_layout` (an HDR port running RS-FEC: Layout::kRsFec).
// - With `smp_agent` on (off by default: the engine then refuses the SMP class), SMPs by LID:
//   PortInfo (0x15, modifier = port; a switch answers port 0 too) with the link state, width,
//   LinkSpeedExtActive and the node's PortInfo capability masks, and PortInfoExtended (0x33)
//   with the node's CapabilityMask and FECModeActive, or `smp_status` instead of either.
// - Set of such an attribute: clears the fields its CounterSelect / CounterSelect2 select
//   (PortCounters: bytes 2-3 and 18; PortCountersExtended: bytes 2-3 and 4-7; others: bytes
//   2-3) in that attribute's copy only, as ibsim's independent narrow and 64-bit copies do,
//   and answers with the counters after the clear.
// - A fixed MAD status per attribute instead of an answer (busy 0x0001, unsupported 0x000C...).
// - Switches are addressed by one LID with PortSelect; an HCA port by its own LID.
// - PortSamplesControl Get: PortSelect and the node's `sample_tick` as Tick (byte 2), the rest 0.
// What it does not model: sampling (PortSamplesControl Set, PortSamplesResult, and any other
// attribute without schema fields: status 0x000C), other SMPs (status 0x000C), AllPortSelect,
// counters that move on their own (tests move them), link state changes but by set_link_up(),
// PM_Key, redirection.
//
// Thread safety: none; the test and the engine use it from one thread.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/topology.h"
#include "ibpulse/schema/counters.h"
#include "ibpulse/schema/fields.h"

namespace ibpulse::collector::testing {

inline constexpr uint16_t kStatusBusy = 0x0001;
inline constexpr uint16_t kStatusUnsupported = 0x000C;  // method/attribute not supported

// How a node's PMA and the path to it behave; the defaults are ibsim's HCA (CapabilityMask
// 0x1200: extended width and PortXmitWait, CapabilityMask2 0), answering after 1 ms.
struct FakeNode {
  uint16_t capability_mask = 0x1200;
  uint32_t capability_mask2 = 0;
  std::chrono::microseconds latency{1000};  // from send to answer
  double loss = 0;           // fraction of attempts never answered (the engine's seeded draw)
  bool unreachable = false;  // every attempt comes back undelivered (umad status 110)
  std::map<uint16_t, uint16_t> status;  // attribute id -> MAD status answered instead of data
  // Attribute id -> attempts of it still to lose (the next ones, whatever `loss` draws).
  std::map<uint16_t, unsigned> lose_next;
  schema::Layout pesc_layout = schema::Layout::kStandard;  // PortExtendedSpeedsCounters'
  uint8_t sample_tick = 0;  // PortSamplesControl's Tick (ibsim itself does not answer it)
  // SMPs (FakeFabric::smp_agent). PortInfo's capability masks are ibsim's: CapabilityMask
  // 0xc048 (0x8000: CapabilityMask2 is valid), CapabilityMask2 0x30 (no PortInfoExtended).
  uint32_t port_info_capability_mask = 0xc048;
  uint16_t port_info_capability_mask2 = 0x30;
  uint16_t port_info_master_sm_lid = 0;  // PortInfo MasterSMLID: the SM the port obeys
  uint8_t speed_ext_active = 2;  // LinkSpeedExtActive of its linked ports: 2 EDR, 4 HDR, 8 NDR
  uint32_t port_info_ext_capability_mask = 1;  // PortInfoExtended: bit 0 IsFECModeSupported
  uint16_t fec_mode_active = 2;  // 0 none, 1 Fire-Code, 2 RS-FEC, 3 Low-Latency RS-FEC, 4 RS-FEC2
  std::map<uint16_t, uint16_t> smp_status;  // SMP attribute id -> status answered instead
  std::set<uint16_t> smp_lost;              // SMP attribute ids never answered
};

// What reached a node.
struct WireRecord {
  // Attempts sent to the node, whatever became of them, per (PortSelect port, attribute).
  std::map<std::pair<PortKey, uint16_t>, uint64_t> attempts;
  // SMP attempts per (attribute modifier port, SMP attribute): the ids overlap the PMA's.
  std::map<std::pair<PortKey, uint16_t>, uint64_t> smp_attempts;
  unsigned max_in_flight = 0;  // the most attempts ever outstanding to the node at once
};

class FakeFabric {
 public:
  // A switch answering at `lid` for ports 1..ports; an HCA with one port (`port`, 1 unless
  // given) at `lid`.
  void add_switch(uint64_t guid, uint16_t lid, uint8_t ports);
  void add_hca(uint64_t guid, uint16_t lid, uint8_t port = 1);
  void link(PortKey a, PortKey b);
  FakeNode& node(uint64_t guid) { return nodes_.at(guid).behaviour; }

  // The true value of a counter (schema::counter_table() index; core ones by CounterId).
  void set(PortKey key, schema::CounterId id, uint64_t value);
  void set(PortKey key, size_t counter_index, uint64_t value);
  // A linked port's link goes Down (both ends, as a pulled cable) or comes back Active.
  void set_link_up(PortKey key, bool up);
  void add(PortKey key, schema::CounterId id, uint64_t delta);
  uint64_t get(PortKey key, schema::CounterId id) const;

  // What discovery would report: linked ports Active 4X at their node's speed_ext_active (EDR
  // unless set), the others Down; the PortInfo capability masks of the node.
  Topology topology() const;
  // SMPs are answered (FakeNode says how); off, the engine refuses to enable the SMP class.
  bool smp_agent = false;

  // The node answering `lid` (0: none), and its answer to `request`: the MAD status, with the
  // attribute data written to `data` when it is 0.
  uint64_t node_at(uint16_t lid) const;
  uint16_t answer(const MadRequest& request, std::array<uint8_t, kMadDataSize>& data);

  // The engine sent an attempt of `request` (answered, lost or returned: all count).
  void note_attempt(const MadRequest& request);
  // The most attempts the engine ever had outstanding at once, to every node together.
  unsigned max_in_flight = 0;
  // The most requests the engine ever held submitted and not yet sent.
  size_t max_queued = 0;
  WireRecord& wire(uint64_t guid) { return nodes_.at(guid).wire; }
  const WireRecord& wire(uint64_t guid) const { return nodes_.at(guid).wire; }
  // Attempts sent to `port`'s PMA for `attribute` (ClassPortInfo: port 0).
  uint64_t attempts(PortKey port, schema::Attribute attribute) const;
  // SMP attempts for `port` (the attribute modifier) of SMP attribute `attribute`.
  uint64_t smp_attempts(PortKey port, uint16_t attribute) const;

 private:
  struct ModelPort {
    std::vector<uint64_t> counters;                              // per schema counter
    std::map<std::pair<uint16_t, size_t>, uint64_t> cleared_at;  // (attribute, field) -> value
    std::optional<PortKey> remote;
    bool up = true;  // a linked port's link is Active (set_link_up)
  };
  struct ModelNode {
    NodeKind kind = NodeKind::kCa;
    uint16_t lid = 0;
    FakeNode behaviour;
    WireRecord wire;
    std::map<uint8_t, ModelPort> ports;
  };
  void add_node(uint64_t guid, NodeKind kind, uint16_t lid, uint8_t ports);
  ModelPort& port(PortKey key);
  const ModelPort& port(PortKey key) const;
  static uint16_t counters(ModelNode& node, const MadRequest& request,
                           std::array<uint8_t, kMadDataSize>& data);
  static uint16_t smp(const ModelNode& node, const MadRequest& request,
                      std::array<uint8_t, kMadDataSize>& data);
  static LinkState link_of(const ModelNode& node, const ModelPort& port);

  std::map<uint64_t, ModelNode> nodes_;
  std::map<uint16_t, uint64_t> lids_;
};

}  // namespace ibpulse::collector::testing
