#include "ibpulse/schema/counters.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "ibpulse/base/check.h"

namespace ibpulse::schema {
namespace {

using enum Attribute;
using enum Unit;

constexpr MibColumn kNoMib{};
// ibIfPortStatEntry columns as the IPoIB working group's last IB-IF-MIB (-09, the module at
// infinibandMIB 2) numbers them: column 1 is its index, so draft -00's column N is N + 1.
constexpr MibColumn stat(uint8_t draft00_column) {
  return MibColumn{MibTable::kIbIfPortStat, static_cast<uint8_t>(draft00_column + 1)};
}

// In CounterId order (checked below). MIB columns: ibIfPortStatEntry of the IB-IF-MIB draft.
constexpr std::array<Counter, kCoreCounterCount> kCore = {{
    {"symbol_error", "Minor link errors detected on one or more physical lanes", kEvents,
     kPortCounters, "SymbolErrorCounter", stat(1)},
    {"link_error_recovery", "Successful link error recoveries by the port training state machine",
     kEvents, kPortCounters, "LinkErrorRecoveryCounter", stat(2)},
    {"link_downed", "Failed link error recoveries that downed the link", kEvents, kPortCounters,
     "LinkDownedCounter", stat(3)},
    {"rcv_errors", "Received packets containing an error", kEvents, kPortCounters, "PortRcvErrors",
     kNoMib},
    {"rcv_remote_physical_errors", "Received packets marked with the EBP delimiter", kEvents,
     kPortCounters, "PortRcvRemotePhysicalErrors", stat(6)},
    {"rcv_switch_relay_errors", "Received packets discarded because they could not be forwarded",
     kEvents, kPortCounters, "PortRcvSwitchRelayErrors", kNoMib},
    {"xmit_discards", "Outbound packets discarded (port down or congestion)", kEvents,
     kPortCounters, "PortXmitDiscards", kNoMib},
    {"xmit_constraint_errors", "Outbound packets not sent because of partition or raw filtering",
     kEvents, kPortCounters, "PortXmitConstraintErrors", kNoMib},
    {"rcv_constraint_errors", "Received packets discarded because of partition or raw filtering",
     kEvents, kPortCounters, "PortRcvConstraintErrors", stat(7)},
    {"local_link_integrity_errors", "Times local physical errors exceeded their threshold", kEvents,
     kPortCounters, "LocalLinkIntegrityErrors", stat(12)},
    {"excessive_buffer_overrun_errors", "Times consecutive flow control periods had an overrun",
     kEvents, kPortCounters, "ExcessiveBufferOverrunErrors", stat(13)},
    {"qp1_dropped", "MADs dropped on QP1 for lack of resources", kEvents, kPortCounters,
     "QP1Dropped", kNoMib},
    {"vl15_dropped", "Incoming VL15 packets dropped for lack of buffers", kEvents, kPortCounters,
     "VL15Dropped", stat(14)},
    {"xmit_data_bytes", "Data octets transmitted (PortXmitData x 4)", kBytes, kPortCounters,
     "PortXmitData", kNoMib},
    {"rcv_data_bytes", "Data octets received (PortRcvData x 4)", kBytes, kPortCounters,
     "PortRcvData", kNoMib},
    {"xmit_packets", "Packets transmitted", kPackets, kPortCounters, "PortXmitPkts", kNoMib},
    {"rcv_packets", "Packets received", kPackets, kPortCounters, "PortRcvPkts", kNoMib},
    {"xmit_wait_ticks", "Ticks with data to send but no flow control credits", kTicks,
     kPortCounters, "PortXmitWait", kNoMib},
    {"unicast_xmit_packets", "Unicast packets transmitted", kPackets, kPortCountersExtended,
     "PortUnicastXmitPkts", kNoMib},
    {"unicast_rcv_packets", "Unicast packets received", kPackets, kPortCountersExtended,
     "PortUnicastRcvPkts", kNoMib},
    {"multicast_xmit_packets", "Multicast packets transmitted", kPackets, kPortCountersExtended,
     "PortMulticastXmitPkts", kNoMib},
    {"multicast_rcv_packets", "Multicast packets received", kPackets, kPortCountersExtended,
     "PortMulticastRcvPkts", kNoMib},
    {"local_physical_errors", "Received packets with local physical errors (ICRC, VCRC, ...)",
     kEvents, kPortRcvErrorDetails, "PortLocalPhysicalErrors", stat(4)},
    {"malformed_pkt_errors", "Received packets with malformed packet errors", kEvents,
     kPortRcvErrorDetails, "PortMalformedPktErrors", stat(5)},
    {"buffer_overrun_errors", "Received packets discarded because of a buffer overrun", kEvents,
     kPortRcvErrorDetails, "PortBufferOverrunErrors", kNoMib},
    {"dlid_mapping_errors", "Received packets discarded because of a DLID mapping error", kEvents,
     kPortRcvErrorDetails, "PortDLIDMappingErrors", kNoMib},
    {"vl_mapping_errors", "Received packets discarded because of a VL mapping error", kEvents,
     kPortRcvErrorDetails, "PortVLMappingErrors", kNoMib},
    {"looping_errors", "Received packets discarded because they would loop", kEvents,
     kPortRcvErrorDetails, "PortLoopingErrors", kNoMib},
    {"inactive_discards", "Outbound packets discarded because the port was not active", kEvents,
     kPortXmitDiscardDetails, "PortInactiveDiscards", stat(8)},
    {"neighbor_mtu_discards", "Outbound packets discarded for exceeding the neighbor MTU", kEvents,
     kPortXmitDiscardDetails, "PortNeighborMTUDiscards", stat(9)},
    {"sw_lifetime_limit_discards", "Outbound packets discarded: switch lifetime limit exceeded",
     kEvents, kPortXmitDiscardDetails, "PortSwLifetimeLimitDiscards", stat(10)},
    {"sw_hoq_lifetime_limit_discards", "Outbound packets discarded: head-of-queue lifetime limit",
     kEvents, kPortXmitDiscardDetails, "PortSwHOQLifetimeLimitDiscards", stat(11)},
    {"xmit_flow_packets", "Flow control packets transmitted", kPackets, kPortFlowCtlCounters,
     "PortXmitFlowPkts", kNoMib},
    {"rcv_flow_packets", "Flow control packets received", kPackets, kPortFlowCtlCounters,
     "PortRcvFlowPkts", kNoMib},
    {"op_rcv_packets", "Packets received with the OpCode PortOpRcvCounters selects", kPackets,
     kPortOpRcvCounters, "PortOpRcvPkts", kNoMib},
    {"op_rcv_data_bytes", "Data octets received with the selected OpCode", kBytes,
     kPortOpRcvCounters, "PortOpRcvData", kNoMib},
}};

// Per-VL and per-lane counters: one declaration per family, one counter per VL or lane.
struct Family {
  std::string_view name;
  std::string_view help;
  Unit unit;
  Attribute attribute;
  std::string_view field_prefix;  // + the VL or lane number = the IBA field name
  std::string_view label;
  uint8_t count;
  Layout layout = Layout::kStandard;
  MibColumn mib = {};  // one-counter families only
};

constexpr std::string_view kCorrectableHelp =
    "FEC blocks corrected, per lane (with RS-FEC active: the port total)";
constexpr std::string_view kUncorrectableHelp =
    "FEC blocks that could not be corrected, per lane (with RS-FEC active: the port total)";

constexpr std::array kFamilies = {
    Family{"vl_op_packets", "Packets of the selected OpCode, per VL", kPackets, kPortVLOpPackets,
           "PortVLOpPackets", "vl", 16},
    Family{"vl_op_data_bytes", "Data octets of the selected OpCode, per VL", kBytes, kPortVLOpData,
           "PortVLOpData", "vl", 16},
    Family{"vl_xmit_flow_ctl_update_errors", "Flow control update errors, per VL", kEvents,
           kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors", "vl", 16},
    Family{"vl_xmit_wait_ticks", "Ticks with data to send but no credits, per VL", kTicks,
           kPortVLXmitWaitCounters, "PortVLXmitWait", "vl", 16},
    Family{"sync_header_error", "Sync header errors (FDR and faster links)", kEvents,
           kPortExtendedSpeedsCounters, "SyncHeaderErrorCounter", "", 1},
    Family{"unknown_block", "Unknown blocks (FDR and faster links)", kEvents,
           kPortExtendedSpeedsCounters, "UnknownBlockCounter", "", 1},
    Family{"error_detection", "Error detection per lane (FDR and faster links)", kEvents,
           kPortExtendedSpeedsCounters, "ErrorDetectionCounterLane", "lane", 12},
    Family{"fec_correctable_blocks", kCorrectableHelp, kBlocks, kPortExtendedSpeedsCounters,
           "FECCorrectableBlockCtrLane", "lane", 12},
    // The RS-FEC layout's port totals share a name with the older layout's per-lane
    // counters (a port reports one or the other; rules and sums over the name cover both)
    // and follow them: the renderer writes a name's series together, under one HELP.
    Family{"fec_correctable_blocks",
           kCorrectableHelp,
           kBlocks,
           kPortExtendedSpeedsCounters,
           "PortFECCorrectableBlockCtr",
           "",
           1,
           Layout::kRsFec,
           {MibTable::kIbpulsePort, 3}},
    Family{"fec_uncorrectable_blocks", kUncorrectableHelp, kBlocks, kPortExtendedSpeedsCounters,
           "FECUncorrectableBlockCtrLane", "lane", 12},
    Family{"fec_uncorrectable_blocks",
           kUncorrectableHelp,
           kBlocks,
           kPortExtendedSpeedsCounters,
           "PortFECUncorrectableBlockCtr",
           "",
           1,
           Layout::kRsFec,
           {MibTable::kIbpulsePort, 4}},
    Family{"fec_correctable_symbols", "RS-FEC symbols corrected, per lane", kSymbols,
           kPortExtendedSpeedsCounters, "FECCorrectableSymbolCtrLane", "lane", 12, Layout::kRsFec},
    Family{"fec_corrected_symbols",
           "RS-FEC symbols corrected, port total",
           kSymbols,
           kPortExtendedSpeedsCounters,
           "PortFECCorrectedSymbolCtr",
           "",
           1,
           Layout::kRsFec,
           {MibTable::kIbpulsePort, 5}},
};

constexpr bool core_in_id_order() {
  // Spot checks that catch a shifted row: the first, a middle and the last id.
  return kCore[index_of(CounterId::kSymbolError)].field == "SymbolErrorCounter" &&
         kCore[index_of(CounterId::kXmitData)].field == "PortXmitData" &&
         kCore[index_of(CounterId::kMulticastRcvPackets)].field == "PortMulticastRcvPkts" &&
         kCore[index_of(CounterId::kSwHoqLifetimeLimitDiscards)].field ==
             "PortSwHOQLifetimeLimitDiscards" &&
         kCore[index_of(CounterId::kOpRcvData)].field == "PortOpRcvData";
}
static_assert(core_in_id_order(), "kCore must list the counters in CounterId order");

// The extra counters' names need storage: field names are built from a prefix and a number.
struct Tables {
  std::vector<std::string> field_names;  // stable: reserved before any view is taken
  std::vector<Counter> counters;
  std::vector<Field> narrow;
  std::vector<std::optional<Field>> wide;
  std::array<std::array<std::vector<FieldSink>, 256>, kLayoutCount> sinks;
};

const Field& require_field(Attribute attribute, std::string_view name, Layout layout) {
  for (const Field& f : fields_of(attribute, layout)) {
    if (f.name == name) return f;
  }
  IBPULSE_CHECK(false, "a counter names {}, a field the schema does not have", name);
  std::abort();  // not reached
}

// `field` is an element of the schema's field table (its position there is its index).
void add_sink(Tables& t, const Field& field, size_t counter, bool wide) {
  auto& sinks =
      t.sinks[static_cast<size_t>(field.layout)][static_cast<size_t>(field.attribute) & 0xff];
  const auto fields = fields_of(field.attribute, field.layout);
  IBPULSE_CHECK(&field >= fields.data() && &field < fields.data() + fields.size(),
                "{} is a copy, not the schema's field", field.name);
  sinks.resize(fields.size());
  sinks[static_cast<size_t>(&field - fields.data())] =
      FieldSink{static_cast<uint16_t>(counter), wide};
}

Tables build() {
  Tables t;
  size_t extra = 0;
  for (const Family& f : kFamilies)
    extra += f.count;
  t.field_names.reserve(extra);
  t.counters.assign(kCore.begin(), kCore.end());
  std::vector<Layout> layouts(kCore.size(), Layout::kStandard);
  for (const Family& f : kFamilies) {
    for (uint8_t i = 0; i < f.count; ++i) {
      const std::string_view field = f.count == 1 ? f.field_prefix
                                                  : std::string_view(t.field_names.emplace_back(
                                                        fmt::format("{}{}", f.field_prefix, i)));
      t.counters.push_back(Counter{f.name, f.help, f.unit, f.attribute, field, f.mib, f.label,
                                   f.count == 1 ? uint8_t{0} : i});
      layouts.push_back(f.layout);
    }
  }
  for (size_t i = 0; i < t.counters.size(); ++i) {
    const Counter& c = t.counters[i];
    const Field& narrow = require_field(c.attribute, c.field, layouts[i]);
    t.narrow.push_back(narrow);
    add_sink(t, narrow, i, false);
    // A field both layouts have at the same place (the sync header and unknown block
    // counters) is one hardware counter: one exported counter, continuous over a change.
    if (layouts[i] == Layout::kStandard) {
      for (const Field& same : fields_of(c.attribute, Layout::kRsFec)) {
        if (same.name != c.field) continue;
        IBPULSE_CHECK(same.bit_offset == narrow.bit_offset && same.width == narrow.width,
                      "{} moved between layouts", c.field);
        add_sink(t, same, i, false);
      }
    }
    std::optional<Field> wide;
    if (c.attribute == kPortCounters) {
      for (const Field& f : fields_of(kPortCountersExtended)) {
        if (f.name == c.field) {
          wide = f;
          add_sink(t, f, i, true);
        }
      }
    }
    t.wide.push_back(wide);
  }
  return t;
}

const Tables& tables() {
  static const Tables t = build();
  return t;
}

constexpr std::array<Derived, kDerivedCount> kDerived = {{
    {"if_in_octets",
     "IF-MIB ifHCInOctets: PortRcvData x 4 + PortRcvPkts x 4 + PortRcvFlowPkts x 8",
     {MibTable::kIfXTable, 6},
     "ifInOctets",
     {MibTable::kIfTable, 10}},
    {"if_out_octets",
     "IF-MIB ifHCOutOctets: PortXmitData x 4 + PortXmitPkts x 4 + PortXmitFlowPkts x 8",
     {MibTable::kIfXTable, 10},
     "ifOutOctets",
     {MibTable::kIfTable, 16}},
    {"if_in_ucast_packets",
     "IF-MIB ifHCInUcastPkts",
     {MibTable::kIfXTable, 7},
     "ifInUcastPkts",
     {MibTable::kIfTable, 11}},
    {"if_in_multicast_packets",
     "IF-MIB ifHCInMulticastPkts",
     {MibTable::kIfXTable, 8},
     "ifInMulticastPkts",
     {MibTable::kIfXTable, 2}},
    {"if_out_ucast_packets",
     "IF-MIB ifHCOutUcastPkts (discarded packets included, as the draft says)",
     {MibTable::kIfXTable, 11},
     "ifOutUcastPkts",
     {MibTable::kIfTable, 17}},
    {"if_out_multicast_packets",
     "IF-MIB ifHCOutMulticastPkts",
     {MibTable::kIfXTable, 12},
     "ifOutMulticastPkts",
     {MibTable::kIfXTable, 4}},
    {"if_in_discards",
     "IF-MIB ifInDiscards: PortRcvConstraintErrors + VL15Dropped",
     {MibTable::kIfTable, 13},
     "ifInDiscards"},
    {"if_out_discards",
     "IF-MIB ifOutDiscards: PortXmitDiscards + PortXmitConstraintErrors",
     {MibTable::kIfTable, 19},
     "ifOutDiscards"},
    {"if_in_errors",
     "IF-MIB ifInErrors: PortRcvRemotePhysicalErrors + PortRcvErrors",
     {MibTable::kIfTable, 14},
     "ifInErrors"},
}};

constexpr std::array<ZeroColumn, 6> kZeroColumns = {{
    {{MibTable::kIfTable, 15}, false, "ifInUnknownProtos"},
    {{MibTable::kIfTable, 20}, false, "ifOutErrors"},
    {{MibTable::kIfXTable, 3}, false, "ifInBroadcastPkts"},
    {{MibTable::kIfXTable, 5}, false, "ifOutBroadcastPkts"},
    {{MibTable::kIfXTable, 9}, true, "ifHCInBroadcastPkts"},
    {{MibTable::kIfXTable, 13}, true, "ifHCOutBroadcastPkts"},
}};

constexpr bool same_column(MibColumn a, MibColumn b) {
  return a.table == b.table && a.column == b.column;
}

// ifXTable's columns 6-13 are its Counter64 ones (RFC 2863); the rest of both tables Counter32.
constexpr bool counter64(MibColumn c) {
  return c.table == MibTable::kIfXTable && c.column >= 6 && c.column <= 13;
}

// Each column named once, with the width RFC 2863 gives it.
constexpr bool columns_well_formed() {
  for (const Derived& d : kDerived) {
    if (d.narrow_mib.table != MibTable::kNone && (!counter64(d.mib) || counter64(d.narrow_mib))) {
      return false;
    }
  }
  for (const ZeroColumn& z : kZeroColumns) {
    if (z.wide != counter64(z.mib)) return false;
    for (const Derived& d : kDerived)
      if (same_column(z.mib, d.mib) || same_column(z.mib, d.narrow_mib)) return false;
  }
  return true;
}
static_assert(columns_well_formed());

}  // namespace

std::span<const Counter> counter_table() {
  return tables().counters;
}

const Counter& counter(CounterId id) {
  return kCore[index_of(id)];
}

std::string metric_name(const Counter& counter) {
  return fmt::format("{}{}_total", kMetricPrefix, counter.name);
}

std::span<const FieldSink> sinks_of(Attribute attribute, Layout layout) {
  return tables().sinks[static_cast<size_t>(layout)][static_cast<size_t>(attribute) & 0xff];
}

const Field& narrow_source(size_t counter_index) {
  return tables().narrow.at(counter_index);
}

std::optional<Field> wide_source(size_t counter_index) {
  return tables().wide.at(counter_index);
}

std::span<const Derived> derived_table() {
  return kDerived;
}

const Derived& derived(DerivedId id) {
  return kDerived[static_cast<size_t>(id)];
}

std::span<const ZeroColumn> zero_if_mib_columns() {
  return kZeroColumns;
}

IfCounterColumn if_counter_column(MibTable table, uint8_t column) {
  using Source = IfCounterColumn::Source;
  const MibColumn at{table, column};
  for (size_t i = 0; i < kDerived.size(); ++i) {
    const auto id = static_cast<DerivedId>(i);
    if (same_column(kDerived[i].mib, at)) return {Source::kDerived, id, counter64(at)};
    if (same_column(kDerived[i].narrow_mib, at)) return {Source::kDerived, id, false};
  }
  for (const ZeroColumn& z : kZeroColumns)
    if (same_column(z.mib, at)) return {Source::kZero, DerivedId::kIfInOctets, z.wide};
  return {};
}

}  // namespace ibpulse::schema
