#pragma once
// Exported counters, declared once: what each one is called (Prometheus, docs), where SNMP
// serves it, and which schema fields feed it. A quantity that PortCounters and
// PortCountersExtended both carry is one counter with two sources (narrow and 64-bit); the
// converters pick the best one per port. Every schema field feeds exactly one counter.
//
// Core counters (PortCounters, PortCountersExtended, the error details, flow control,
// PortOpRcvCounters) have a CounterId and a fixed slot in every port's state. Per-VL and
// per-lane counters (PortVL*, PortExtendedSpeedsCounters) are "extra": they follow the core ones
// in counter_table() and live in a block a port only has where they were read.
//
// Thread safety: constants and pure functions only.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ibpulse/schema/fields.h"

namespace ibpulse::schema {

enum class CounterId : uint8_t {
  kSymbolError,
  kLinkErrorRecovery,
  kLinkDowned,
  kRcvErrors,
  kRcvRemotePhysicalErrors,
  kRcvSwitchRelayErrors,
  kXmitDiscards,
  kXmitConstraintErrors,
  kRcvConstraintErrors,
  kLocalLinkIntegrityErrors,
  kExcessiveBufferOverrunErrors,
  kQp1Dropped,
  kVl15Dropped,
  kXmitData,
  kRcvData,
  kXmitPackets,
  kRcvPackets,
  kXmitWait,
  kUnicastXmitPackets,
  kUnicastRcvPackets,
  kMulticastXmitPackets,
  kMulticastRcvPackets,
  kLocalPhysicalErrors,
  kMalformedPktErrors,
  kBufferOverrunErrors,
  kDlidMappingErrors,
  kVlMappingErrors,
  kLoopingErrors,
  kInactiveDiscards,
  kNeighborMtuDiscards,
  kSwLifetimeLimitDiscards,
  kSwHoqLifetimeLimitDiscards,
  kXmitFlowPackets,
  kRcvFlowPackets,
  kOpRcvPackets,
  kOpRcvData,
};
inline constexpr size_t kCoreCounterCount = static_cast<size_t>(CounterId::kOpRcvData) + 1;

constexpr size_t index_of(CounterId id) {
  return static_cast<size_t>(id);
}

// PortXmitWait counts ticks in which the port had data to send and sent none; the tick's period
// is device-defined: PortSamplesControl's Tick + 1 byte times of a lane, where a node answers it
// (converters::xmit_wait_tick_period_ns). The period assumed where none answers and none is
// configured (`congestion.xmit-wait-tick`): 4 ns, a byte on an SDR lane, Tick 0 at SDR.
// docs/congestion.md says how to measure a device's own.
inline constexpr uint64_t kDefaultXmitWaitTickNs = 4;

// Where SNMP serves a value (IF-MIB RFC 2863; IB-IF-MIB draft-ietf-ipoib-ibif-mib-00;
// IBPULSE-MIB's ibpulsePortTable for what neither has a column for).
enum class MibTable : uint8_t { kNone, kIfTable, kIfXTable, kIbIfPortStat, kIbpulsePort };
struct MibColumn {
  MibTable table = MibTable::kNone;
  uint8_t column = 0;
};

// One exported counter.
struct Counter {
  // Prometheus: infiniband_port_<name>_total, the IBA field name in snake case without the
  // Port prefix and the Counter suffix, with the unit (bytes, packets, errors, ticks...).
  std::string_view name;
  std::string_view help;
  Unit unit;
  Attribute attribute;     // where it is read (the narrow copy where there are two)
  std::string_view field;  // the IBA field name, as perfquery prints it
  MibColumn mib;
  std::string_view label = {};  // "vl" or "lane" for per-VL and per-lane counters, else empty
  uint8_t label_value = 0;
};

// Every counter: the core ones in CounterId order, then the extra ones.
std::span<const Counter> counter_table();
inline size_t counter_count() {
  return counter_table().size();
}
inline size_t extra_counter_count() {
  return counter_count() - kCoreCounterCount;
}
const Counter& counter(CounterId id);

// Every per-port metric's name starts with this (Prometheus, remote write, alert rules' names).
inline constexpr std::string_view kMetricPrefix = "infiniband_port_";
// The full Prometheus metric name: infiniband_port_<name>_total.
std::string metric_name(const Counter& counter);

// What a schema field feeds: its counter's index in counter_table(), and whether it is the
// 64-bit copy of a counter PortCounters also carries.
struct FieldSink {
  uint16_t counter = 0;
  bool wide = false;
};

// One sink per field of one layout of `attribute`, in fields_of(attribute, layout) order
// (empty for an attribute without counters). A field both layouts have at the same place
// feeds the same counter in both.
std::span<const FieldSink> sinks_of(Attribute attribute, Layout layout = Layout::kStandard);

// The schema field of a counter: its narrow (or only) source, and its 64-bit copy if any.
// (A counter both layouts of an attribute feed names its Layout::kStandard field.)
const Field& narrow_source(size_t counter_index);
std::optional<Field> wide_source(size_t counter_index);

// IF-MIB values the converters compute from the counters (draft section 2.4); ifOutErrors,
// ifInUnknownProtos and the broadcast counters are always 0 and not listed.
enum class DerivedId : uint8_t {
  kIfInOctets,
  kIfOutOctets,
  kIfInUcastPkts,
  kIfInMulticastPkts,
  kIfOutUcastPkts,
  kIfOutMulticastPkts,
  kIfInDiscards,
  kIfOutDiscards,
  kIfInErrors,
};
inline constexpr size_t kDerivedCount = static_cast<size_t>(DerivedId::kIfInErrors) + 1;

struct Derived {
  std::string_view name;  // Prometheus: infiniband_port_<name>_total
  std::string_view help;
  MibColumn mib;            // the 64-bit ifXTable column where there is one, else the ifTable one
  std::string_view object;  // the IF-MIB object the draft's mapping names: "ifInOctets"
  // The Counter32 column (ifTable's, or ifXTable's for multicast) beside a 64-bit `mib`; none
  // where `mib` is the Counter32 one already.
  MibColumn narrow_mib = {};
};
std::span<const Derived> derived_table();
const Derived& derived(DerivedId id);

// IF-MIB counters the draft says are always 0 on InfiniBand (no unknown protocols, no
// broadcast, output errors counted nowhere): served as 0 once a port's counters were read.
struct ZeroColumn {
  MibColumn mib;
  bool wide;                // Counter64 (else Counter32)
  std::string_view object;  // "ifInUnknownProtos"
};
std::span<const ZeroColumn> zero_if_mib_columns();

// What an ifTable or ifXTable counter column serves (table kIfTable or kIfXTable): an IF-MIB
// value of the converters, or 0 always; nothing for a column that is not a counter.
struct IfCounterColumn {
  enum class Source : uint8_t { kNone, kDerived, kZero } source = Source::kNone;
  DerivedId id = DerivedId::kIfInOctets;  // for kDerived
  bool wide = false;                      // Counter64 (else Counter32)
};
IfCounterColumn if_counter_column(MibTable table, uint8_t column);

}  // namespace ibpulse::schema
