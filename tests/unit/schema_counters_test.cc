// The exported-counter schema: complete (every field feeds one counter), named by the rule
// (infiniband_port_<field in snake case>_<unit>_total), and mapped to the IB-IF-MIB columns
// the draft lists.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ibpulse/schema/counters.h"

namespace ibpulse::schema {
namespace {

// "PortDLIDMappingErrors" -> "port_dlid_mapping_errors".
std::string snake(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    if (upper && i > 0) {
      const char prev = name[i - 1];
      const bool next_lower =
          i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1])) != 0;
      if (std::islower(static_cast<unsigned char>(prev)) ||
          std::isdigit(static_cast<unsigned char>(prev)) ||
          (std::isupper(static_cast<unsigned char>(prev)) && next_lower)) {
        out += '_';
      }
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string strip(std::string s, std::string_view prefix, std::string_view suffix) {
  if (s.starts_with(prefix)) s.erase(0, prefix.size());
  if (s.ends_with(suffix)) s.erase(s.size() - suffix.size());
  return s;
}

// The naming rule: the IBA field in snake case without Port and Counter, then the unit; a
// field that names its unit already (Pkts) has it replaced.
std::string expected_name(const Counter& c) {
  std::string base = strip(snake(c.field), "port_", "_counter");
  switch (c.unit) {
    case Unit::kBytes:
      return base + "_bytes";
    case Unit::kTicks:
      return base + "_ticks";
    case Unit::kPackets:
      return strip(base, "", "_pkts") + "_packets";
    default:
      return base;
  }
}

TEST(SchemaCounters, CoreNamesFollowTheNamingRule) {
  const auto table = counter_table();
  for (size_t i = 0; i < kCoreCounterCount; ++i) {
    EXPECT_EQ(table[i].name, expected_name(table[i])) << table[i].field;
  }
  EXPECT_EQ(metric_name(counter(CounterId::kSymbolError)), "infiniband_port_symbol_error_total");
  EXPECT_EQ(metric_name(counter(CounterId::kXmitWait)), "infiniband_port_xmit_wait_ticks_total");
  EXPECT_EQ(metric_name(counter(CounterId::kXmitData)), "infiniband_port_xmit_data_bytes_total");
  EXPECT_EQ(metric_name(counter(CounterId::kXmitPackets)), "infiniband_port_xmit_packets_total");
  EXPECT_EQ(metric_name(counter(CounterId::kLinkErrorRecovery)),
            "infiniband_port_link_error_recovery_total");
}

TEST(SchemaCounters, NamesAndLabelsAreUniqueAndCarryTheirUnit) {
  std::set<std::tuple<std::string_view, std::string_view, int>> seen;
  for (const Counter& c : counter_table()) {
    EXPECT_TRUE(seen.insert({c.name, c.label, c.label_value}).second) << c.name;
    const bool suffix_ok = (c.unit == Unit::kBytes && c.name.ends_with("_bytes")) ||
                           (c.unit == Unit::kTicks && c.name.ends_with("_ticks")) ||
                           (c.unit == Unit::kBlocks && c.name.ends_with("_blocks")) ||
                           (c.unit == Unit::kSymbols && c.name.ends_with("_symbols")) ||
                           c.unit == Unit::kEvents || c.unit == Unit::kPackets;
    EXPECT_TRUE(suffix_ok) << c.name;
    EXPECT_FALSE(c.help.empty()) << c.name;
    // Core counters are per port; the per-VL and per-lane families carry their label, but
    // for the extended speeds counters with one copy per port (the RS-FEC totals among them).
    const bool per_port = &c < counter_table().data() + kCoreCounterCount ||
                          c.field == "SyncHeaderErrorCounter" || c.field == "UnknownBlockCounter" ||
                          c.field.starts_with("PortFEC");
    EXPECT_EQ(c.label.empty(), per_port) << c.name;
  }
  // Core, 4 per-VL families, 2 + 36 older extended speeds counters, 12 + 3 RS-FEC ones.
  EXPECT_EQ(counter_count(), kCoreCounterCount + 64 + 2 + 36 + 15);
}

TEST(SchemaCounters, EveryFieldFeedsExactlyOneCounter) {
  std::map<std::tuple<size_t, bool, Layout>, int> fed;
  size_t fields_seen = 0;
  for (const AttributeInfo& a : all_attributes()) {
    for (const Layout layout : {Layout::kStandard, Layout::kRsFec}) {
      const auto fields = fields_of(a.id, layout);
      const auto sinks = sinks_of(a.id, layout);
      ASSERT_EQ(sinks.size(), fields.size()) << a.name;
      fields_seen += fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        const size_t index = sinks[i].counter;
        ASSERT_LT(index, counter_count());
        const Field& source = sinks[i].wide ? *wide_source(index) : narrow_source(index);
        EXPECT_EQ(source.attribute, a.id);
        EXPECT_EQ(source.name, fields[i].name);
        EXPECT_EQ((++fed[{index, sinks[i].wide, layout}]), 1) << fields[i].name;
      }
    }
  }
  EXPECT_EQ(fed.size(), all_fields().size());
  EXPECT_EQ(fields_seen, all_fields().size());
}

// The two fields both layouts have at the same place are one hardware counter: a port whose
// layout changes keeps counting them continuously. Every other RS-FEC field has its own.
TEST(SchemaCounters, BothExtendedSpeedsLayoutsFeedTheSyncHeaderAndUnknownBlockCounters) {
  const auto standard = sinks_of(Attribute::kPortExtendedSpeedsCounters);
  const auto rs_fec = sinks_of(Attribute::kPortExtendedSpeedsCounters, Layout::kRsFec);
  ASSERT_EQ(rs_fec.size(), 17u);
  EXPECT_EQ(rs_fec[0].counter, standard[0].counter);  // SyncHeaderErrorCounter
  EXPECT_EQ(rs_fec[1].counter, standard[1].counter);  // UnknownBlockCounter
  std::set<size_t> standard_counters;
  for (const FieldSink& s : standard)
    standard_counters.insert(s.counter);
  for (size_t i = 2; i < rs_fec.size(); ++i)
    EXPECT_FALSE(standard_counters.count(rs_fec[i].counter)) << i;
}

// The renderer writes a name's series together under one HELP: the RS-FEC port totals that
// share a name with the older layout's per-lane counters follow them, with the same help.
TEST(SchemaCounters, RsFecTotalsFollowThePerLaneCountersOfTheirName) {
  const auto table = counter_table();
  for (const std::string_view name : {"fec_correctable_blocks", "fec_uncorrectable_blocks"}) {
    std::vector<size_t> at;
    for (size_t i = 0; i < table.size(); ++i) {
      if (table[i].name == name) at.push_back(i);
    }
    ASSERT_EQ(at.size(), 13u) << name;
    EXPECT_EQ(at.back() - at.front(), 12u) << name << ": contiguous";
    EXPECT_EQ(table[at.back()].label, "") << name << ": the total last";
    EXPECT_EQ(narrow_source(at.back()).layout, Layout::kRsFec) << name;
    EXPECT_EQ(table[at.back()].help, table[at.front()].help) << name;
  }
}

TEST(SchemaCounters, PairsTheNarrowAndThe64BitCopies) {
  const auto index = [](CounterId id) { return index_of(id); };
  EXPECT_EQ(narrow_source(index(CounterId::kXmitData)).width, 32);
  EXPECT_EQ(wide_source(index(CounterId::kXmitData))->width, 64);
  EXPECT_EQ(wide_source(index(CounterId::kXmitData))->attribute, Attribute::kPortCountersExtended);
  EXPECT_EQ(narrow_source(index(CounterId::kSymbolError)).width, 16);
  EXPECT_EQ(wide_source(index(CounterId::kSymbolError))->select, SelectMask::kCounterSelect2);
  EXPECT_EQ(narrow_source(index(CounterId::kQp1Dropped)).bit_offset, 160);  // not libibmad's
  EXPECT_FALSE(wide_source(index(CounterId::kUnicastXmitPackets)));
  EXPECT_EQ(narrow_source(index(CounterId::kUnicastXmitPackets)).width, 64);
  EXPECT_FALSE(wide_source(index(CounterId::kXmitFlowPackets)));
  EXPECT_FALSE(wide_source(index(CounterId::kLocalPhysicalErrors)));
}

TEST(SchemaCounters, IbIfPortStatColumnsAreTheDraftsFourteenAfterTheIndex) {
  std::map<int, std::string_view> columns;
  for (const Counter& c : counter_table()) {
    if (c.mib.table == MibTable::kIbIfPortStat) columns[c.mib.column] = c.field;
  }
  const std::map<int, std::string_view> draft = {{2, "SymbolErrorCounter"},
                                                 {3, "LinkErrorRecoveryCounter"},
                                                 {4, "LinkDownedCounter"},
                                                 {5, "PortLocalPhysicalErrors"},
                                                 {6, "PortMalformedPktErrors"},
                                                 {7, "PortRcvRemotePhysicalErrors"},
                                                 {8, "PortRcvConstraintErrors"},
                                                 {9, "PortInactiveDiscards"},
                                                 {10, "PortNeighborMTUDiscards"},
                                                 {11, "PortSwLifetimeLimitDiscards"},
                                                 {12, "PortSwHOQLifetimeLimitDiscards"},
                                                 {13, "LocalLinkIntegrityErrors"},
                                                 {14, "ExcessiveBufferOverrunErrors"},
                                                 {15, "VL15Dropped"}};
  // Draft -09 (the module at infinibandMIB 2) numbers them 2-15: column 1 is the index.
  EXPECT_EQ(columns, draft);
}

TEST(SchemaCounters, DerivedValuesMapToIfMibColumns) {
  EXPECT_EQ(derived(DerivedId::kIfInOctets).name, "if_in_octets");
  EXPECT_EQ(derived(DerivedId::kIfInOctets).mib.table, MibTable::kIfXTable);
  EXPECT_EQ(derived(DerivedId::kIfInOctets).mib.column, 6);
  EXPECT_EQ(derived(DerivedId::kIfOutMulticastPkts).mib.column, 12);
  EXPECT_EQ(derived(DerivedId::kIfInDiscards).mib.table, MibTable::kIfTable);
  EXPECT_EQ(derived(DerivedId::kIfInDiscards).mib.column, 13);
  EXPECT_EQ(derived(DerivedId::kIfOutDiscards).mib.column, 19);
  EXPECT_EQ(derived(DerivedId::kIfInErrors).mib.column, 14);
  // The draft's mapping table names the IF-MIB objects; `ibpulse query` shows them so.
  EXPECT_EQ(derived(DerivedId::kIfInOctets).object, "ifInOctets");
  EXPECT_EQ(derived(DerivedId::kIfOutUcastPkts).object, "ifOutUcastPkts");
  EXPECT_EQ(derived(DerivedId::kIfInErrors).object, "ifInErrors");
  for (const auto& d : derived_table())
    EXPECT_TRUE(d.object.starts_with("if")) << d.name;
}

// RFC 2863's counter columns, written out here as the RFC lists them: each served from the
// schema's IF-MIB values or as an InfiniBand zero, with the RFC's width; no other column is.
TEST(SchemaCounters, EveryIfMibCounterColumnHasOneSource) {
  using Source = IfCounterColumn::Source;
  struct Want {
    MibTable table;
    uint8_t column;
    Source source;
    bool wide;
  };
  const MibTable t = MibTable::kIfTable;
  const MibTable x = MibTable::kIfXTable;
  const Source d = Source::kDerived;
  const Source z = Source::kZero;
  const std::vector<Want> counters = {
      {t, 10, d, false}, {t, 11, d, false}, {t, 13, d, false}, {t, 14, d, false}, {t, 15, z, false},
      {t, 16, d, false}, {t, 17, d, false}, {t, 19, d, false}, {t, 20, z, false}, {x, 2, d, false},
      {x, 3, z, false},  {x, 4, d, false},  {x, 5, z, false},  {x, 6, d, true},   {x, 7, d, true},
      {x, 8, d, true},   {x, 9, z, true},   {x, 10, d, true},  {x, 11, d, true},  {x, 12, d, true},
      {x, 13, z, true}};
  size_t served = 0;
  for (const MibTable table : {t, x}) {
    for (uint8_t column = 0; column < 32; ++column)
      served += if_counter_column(table, column).source != Source::kNone;
  }
  EXPECT_EQ(served, counters.size());
  for (const Want& w : counters) {
    const IfCounterColumn c = if_counter_column(w.table, w.column);
    EXPECT_EQ(c.source, w.source) << int(w.column);
    EXPECT_EQ(c.wide, w.wide) << int(w.column);
  }
  EXPECT_EQ(if_counter_column(t, 10).id, DerivedId::kIfInOctets);
  EXPECT_EQ(if_counter_column(x, 6).id, DerivedId::kIfInOctets);
  EXPECT_EQ(if_counter_column(x, 2).id, DerivedId::kIfInMulticastPkts);
  EXPECT_EQ(if_counter_column(x, 12).id, DerivedId::kIfOutMulticastPkts);
  EXPECT_EQ(if_counter_column(t, 19).id, DerivedId::kIfOutDiscards);
  EXPECT_EQ(zero_if_mib_columns().size(), 6u);
}

}  // namespace
}  // namespace ibpulse::schema
