#pragma once
// What the state file tests share: a two-port topology, a converter with history (a latched
// counter, a foreign clear, a 64-bit-only counter, a per-VL counter) and the byte surgery that
// turns a written file into a crafted one.

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ibpulse/converters/state_file.h"
#include "sample_builders.h"

namespace ibpulse::converters::state_testing {

using collector::PortKey;
using collector::RawSample;
using schema::Attribute;
using schema::CounterId;
using namespace std::chrono_literals;

inline constexpr uint64_t kPrefix = 0xfe80000000000000ull;
inline const Clock::time_point t0 = Clock::time_point{} + 1h;

inline collector::Topology topology(std::vector<PortKey> keys, uint64_t prefix = kPrefix) {
  collector::Topology t;
  t.subnet_prefix = prefix;
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) {
    collector::Port p;
    p.key = k;
    t.ports.push_back(p);
  }
  return t;
}

using converters::testing::field;
using converters::testing::sample;

inline RawSample counters(PortKey port, Clock::time_point at, uint64_t symbol_errors,
                          uint64_t link_downed) {
  RawSample s = sample(port, Attribute::kPortCounters, at);
  s.values[field(Attribute::kPortCounters, "SymbolErrorCounter")] = symbol_errors;
  s.values[field(Attribute::kPortCounters, "LinkDownedCounter")] = link_downed;
  s.advertised &= ~(uint64_t{1} << field(Attribute::kPortCounters, "PortXmitData"));  // 64-bit
  return s;
}

inline RawSample extended(PortKey port, Clock::time_point at, uint64_t xmit_data) {
  RawSample s = sample(port, Attribute::kPortCountersExtended, at);
  s.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = xmit_data;
  s.advertised = uint64_t{1} << field(Attribute::kPortCountersExtended, "PortXmitData");
  return s;
}

inline uint64_t total(const Converter& c, PortKey k, CounterId id) {
  return c.state(k)->core[schema::index_of(id)].total;
}

inline const PortKey kA{0x0002c90300000001ull, 1}, kB{0x0002c90300000002ull, 3};

// Two ports with history: a latched LinkDowned (8 bits), a foreign clear of SymbolError,
// PortXmitData from its 64-bit copy only, and a per-VL counter on B.
inline Converter with_history(const collector::Topology& t) {
  Converter c({});
  c.set_topology(std::make_shared<collector::Topology>(t));
  c.apply(counters(kA, t0, 10, 200));
  c.apply(counters(kA, t0 + 1s, 30, 255));  // latched
  c.apply(counters(kA, t0 + 2s, 5, 255));   // cleared by someone else: +5
  c.apply(extended(kA, t0, 1000));
  c.apply(extended(kA, t0 + 1s, 1500));
  c.apply(counters(kB, t0, 7, 1));
  RawSample vl = sample(kB, Attribute::kPortVLXmitWaitCounters, t0);
  vl.values[2] = 4242;
  c.apply(vl);
  return c;
}
// A new checksum over altered bytes: what a crafted (not a damaged) file looks like.
inline void reseal(std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) {
    h ^= static_cast<uint8_t>(bytes[i]);
    h *= 0x100000001b3ull;
  }
  std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

// Where the counter table ends in a file written for `if_indexes` ifIndex records: the header is
// 44 bytes, each ifIndex record 13, then the table (two u32 counts, then length-prefixed names).
inline size_t counter_table_end(const std::string& bytes, size_t if_indexes) {
  size_t at = 44 + 13 * if_indexes;
  uint32_t count = 0;
  std::memcpy(&count, bytes.data() + at + 4, 4);
  at += 8;
  for (uint32_t i = 0; i < count; ++i)
    at += 1 + size_t{static_cast<uint8_t>(bytes[at])};
  return at;
}

}  // namespace ibpulse::converters::state_testing
