#pragma once
// A snapshot of the two-node fabric (test_fabric.h) as the SNMP tests serve it: the HCA port
// read through PortCountersExtended (64-bit data beyond 2^32) and with per-VL traffic, switch
// port 7 through PortCounters only (a latched SymbolErrorCounter), switch port 8 down.
#include <chrono>
#include <memory>

#include "ibpulse/converters/converter.h"
#include "sample_builders.h"
#include "test_fabric.h"

namespace ibpulse::converters::testing {

inline std::shared_ptr<const FabricSnapshot> small_fabric_snapshot(Clock::time_point t0) {
  using schema::Attribute;
  Converter c({});
  c.set_topology(two_node_fabric("leaf01"), t0);
  auto ext = sample(kHca, Attribute::kPortCountersExtended, t0);
  ext.advertised = 0x0F;  // the four 64-bit data and packet counters
  ext.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = 5'000'000'000'000ull;
  ext.values[field(Attribute::kPortCountersExtended, "PortXmitPkts")] = 1000;
  ext.values[field(Attribute::kPortCountersExtended, "PortRcvData")] = 100;
  ext.values[field(Attribute::kPortCountersExtended, "PortRcvPkts")] = 7;
  c.apply(ext);
  auto narrow = sample(kSwitch, Attribute::kPortCounters, t0);
  narrow.values[field(Attribute::kPortCounters, "SymbolErrorCounter")] = 0xFFFF;
  narrow.values[field(Attribute::kPortCounters, "PortRcvErrors")] = 3;
  narrow.values[field(Attribute::kPortCounters, "LinkDownedCounter")] = 2;
  c.apply(narrow);
  c.apply(vl1_sample(kHca, t0));
  return c.snapshot(t0 + std::chrono::seconds(2));
}

}  // namespace ibpulse::converters::testing
