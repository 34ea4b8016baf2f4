#include "ibpulse/converters/converter.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>

#include "ibpulse/base/check.h"
#include "ibpulse/converters/width.h"

namespace ibpulse::converters {
namespace {

using collector::MadFailure;
using collector::RawSample;
using schema::Attribute;
using schema::kCoreCounterCount;

size_t slot_of(Attribute attribute) {
  return static_cast<size_t>(attribute) & 0xf;  // unique for the PMA attributes 0x10-0x1F
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr size_t kUnicastXmitField = 4;  // PortCountersExtended: advertised with CapMask 0x200

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// The fields whose exact deltas say the time between two readings is covered (PortSnapshot::
// covered_symbol and covered_fec): bit i for field i of the attribute's layout.
struct CoverageFields {
  uint64_t symbol = 0;  // SymbolErrorCounter, narrow or 64-bit: whichever copy the port reads
  uint64_t fec = 0;     // the RS-FEC uncorrectable blocks and corrected symbols totals
};

const CoverageFields& coverage_fields(Attribute attribute, schema::Layout layout) {
  static const auto table = [] {
    std::array<std::array<CoverageFields, 256>, schema::kLayoutCount> out{};
    const size_t symbol = schema::index_of(schema::CounterId::kSymbolError);
    for (const Attribute a : {Attribute::kPortCounters, Attribute::kPortCountersExtended}) {
      const auto sinks = schema::sinks_of(a);
      for (size_t i = 0; i < sinks.size(); ++i) {
        if (sinks[i].counter == symbol) out[0][static_cast<size_t>(a) & 0xff].symbol |= 1ull << i;
      }
    }
    const auto pesc = Attribute::kPortExtendedSpeedsCounters;
    const auto fields = schema::fields_of(pesc, schema::Layout::kRsFec);
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == "PortFECUncorrectableBlockCtr" ||
          fields[i].name == "PortFECCorrectedSymbolCtr") {
        out[static_cast<size_t>(schema::Layout::kRsFec)][static_cast<size_t>(pesc) & 0xff].fec |=
            1ull << i;
      }
    }
    return out;
  }();
  return table[static_cast<size_t>(layout)][static_cast<size_t>(attribute) & 0xff];
}

// The core counters an attribute's sinks write: [first, last], or first > last if none.
struct CoreRange {
  uint8_t first = kCoreCounterCount, last = 0;
};

const CoreRange& core_range(Attribute attribute) {
  static const auto table = [] {
    std::array<CoreRange, 256> out{};
    for (size_t a = 0; a < out.size(); ++a) {
      for (const schema::FieldSink& sink : schema::sinks_of(static_cast<Attribute>(a))) {
        if (sink.counter >= kCoreCounterCount) continue;
        out[a].first = std::min(out[a].first, static_cast<uint8_t>(sink.counter));
        out[a].last = std::max(out[a].last, static_cast<uint8_t>(sink.counter));
      }
    }
    return out;
  }();
  return table[static_cast<size_t>(attribute) & 0xff];
}

// State lines are prefetched into L2 (prefetcht1), not L1: a sample writes up to 12 of them
// and 8 samples are fetched ahead, more than L1's miss buffers hold; a prefetch into L1 then
// stalls until one frees (5.3-5.5M -> 6.7-6.8M samples/s). L2 to L1 is then a short wait.
constexpr int kIntoL2 = 2;

template <typename T>
void prefetch_lines(const T* first, const T* last) {
  constexpr uintptr_t kLine = 64;
  const auto end = reinterpret_cast<uintptr_t>(last + 1);
  for (auto a = reinterpret_cast<uintptr_t>(first) & ~(kLine - 1); a < end; a += kLine)
    __builtin_prefetch(reinterpret_cast<const void*>(a), 1, kIntoL2);
}

// accumulate() on a packed core counter.
Outcome accumulate_core(CoreCounters& core, size_t c, const Reading& reading) {
  CounterState st = core[c];
  const Outcome out = accumulate(st, reading);
  core.set(c, st);
  return out;
}

}  // namespace

size_t Converter::PortIndex::home(uint64_t guid) const {
  guid ^= guid >> 30;
  guid *= 0xBF58476D1CE4E5B9ull;
  guid ^= guid >> 27;
  guid *= 0x94D049BB133111EBull;
  guid ^= guid >> 31;
  return static_cast<size_t>(guid) & (nodes_.size() - 1);
}

const Converter::PortIndex::Node* Converter::PortIndex::node(uint64_t guid) const {
  if (nodes_.empty()) return nullptr;
  for (size_t i = home(guid);; i = (i + 1) & (nodes_.size() - 1)) {
    const Node& n = nodes_[i];
    if (n.ports == 0) return nullptr;
    if (n.guid == guid) return &n;
  }
}

uint32_t Converter::PortIndex::find(collector::PortKey key) const {
  const Node* n = node(key.node_guid);
  return n == nullptr || key.port >= n->ports ? kNone : slots_[n->first + key.port];
}

void Converter::PortIndex::insert(collector::PortKey key, uint32_t slot) {
  if ((node_count_ + 1) * 2 > nodes_.size()) {
    std::vector<Node> old(std::max<size_t>(nodes_.size() * 2, 64));
    old.swap(nodes_);
    for (const Node& n : old) {
      if (n.ports == 0) continue;
      size_t i = home(n.guid);
      while (nodes_[i].ports != 0)
        i = (i + 1) & (nodes_.size() - 1);
      nodes_[i] = n;
    }
  }
  size_t i = home(key.node_guid);
  while (nodes_[i].ports != 0 && nodes_[i].guid != key.node_guid)
    i = (i + 1) & (nodes_.size() - 1);
  Node& n = nodes_[i];
  if (n.ports == 0) {
    n = Node{key.node_guid, static_cast<uint32_t>(slots_.size()), 0};
    ++node_count_;
  }
  if (key.port >= n.ports) {
    // Grow the block: in place if it is the last one (ports inserted in order), else moved to
    // the end with room to spare (the old block is left unused).
    const size_t ports = n.first + n.ports == slots_.size()
                             ? size_t{key.port} + 1
                             : std::max<size_t>(size_t{key.port} + 1, size_t{n.ports} * 2);
    if (n.first + n.ports != slots_.size()) {
      const std::vector<uint32_t> block(slots_.begin() + n.first,
                                        slots_.begin() + n.first + n.ports);
      n.first = static_cast<uint32_t>(slots_.size());
      slots_.insert(slots_.end(), block.begin(), block.end());
    }
    slots_.resize(n.first + std::min<size_t>(ports, 256), kNone);
    n.ports = static_cast<uint16_t>(std::min<size_t>(ports, 256));
  }
  slots_[n.first + key.port] = slot;
}

const void* Converter::PortIndex::bucket(collector::PortKey key) const {
  return nodes_.empty() ? nullptr : &nodes_[home(key.node_guid)];
}

Converter::PortState& Converter::port(collector::PortKey key, uint32_t slot) {
  if (slot == PortIndex::kNone) slot = index_.find(key);
  if (slot == PortIndex::kNone) {
    slot = static_cast<uint32_t>(states_.size());
    index_.insert(key, slot);
    states_.emplace_back();
    slot_keys_.push_back(key);
    read_.push_back(0);
  }
  read_[slot] = 1;
  return states_[slot];
}

const Converter::PortState* Converter::state(collector::PortKey key) const {
  const uint32_t slot = index_.find(key);
  return slot == PortIndex::kNone || read_[slot] == 0 ? nullptr : &states_[slot];
}

uint32_t Converter::prefetch_state(const RawSample& s) const {
  const uint32_t slot = index_.find(s.port);
  if (slot == PortIndex::kNone) return slot;
  const PortState& p = states_[slot];
  __builtin_prefetch(&p.present, 1, kIntoL2);
  __builtin_prefetch(&p.last_read[slot_of(s.attribute)], 1, kIntoL2);
  const CoreRange& range = core_range(s.attribute);
  if (range.first <= range.last && s.failure == MadFailure::kNone &&
      (s.advertised & ~s.superseded) != 0) {
    prefetch_lines(p.core.values(range.first), p.core.values(range.last));
    prefetch_lines(&p.rates[range.first], &p.rates[range.last]);
  }
  return slot;
}

void Converter::apply_vl_sample(const RawSample& s) {
  auto& traffic = vl_traffic_[s.port];
  // Snapshots share the block: copy before writing if one still holds it.
  auto next =
      traffic ? std::make_shared<PortVlTraffic>(*traffic) : std::make_shared<PortVlTraffic>();
  if (add_vl_sample(*next, s)) traffic = std::move(next);
  if (!traffic) vl_traffic_.erase(s.port);  // no per-VL select: no row
}

ApplyEvents Converter::apply(const RawSample& s) {
  return apply_at(s, PortIndex::kNone);
}

void Converter::apply_batch(std::span<const RawSample> samples, std::span<ApplyEvents> events) {
  IBPULSE_CHECK(events.size() >= samples.size(), "{} events for {} samples", events.size(),
                samples.size());
  // Two stages: the index entry of a sample kIndexAhead on, then (its entry now cached) the
  // state lines of a sample kStateAhead on, whose slot is kept for when it is applied. The
  // prefetches stay in this function: GCC takes a function whose only effect is a prefetch for
  // one without effects and drops its calls.
  constexpr size_t kIndexAhead = 16;
  constexpr size_t kStateAhead = 8;
  std::array<uint32_t, kStateAhead> slots{};
  const size_t n = samples.size();
  for (size_t i = 0; i < std::min(n, kIndexAhead); ++i)
    __builtin_prefetch(index_.bucket(samples[i].port));
  for (size_t i = 0; i < std::min(n, kStateAhead); ++i)
    slots[i] = prefetch_state(samples[i]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kIndexAhead < n) __builtin_prefetch(index_.bucket(samples[i + kIndexAhead].port));
    const uint32_t slot = slots[i % kStateAhead];
    if (i + kStateAhead < n) slots[i % kStateAhead] = prefetch_state(samples[i + kStateAhead]);
    // A port new in this batch may have been created since its slot was looked up.
    events[i] = apply_at(samples[i], slot);
  }
}

ApplyEvents Converter::apply_at(const RawSample& s, uint32_t slot) {
  ApplyEvents events;
  if (!port_subnets_.empty()) {
    const auto it = port_subnets_.find(s.port);
    if (it != port_subnets_.end() && it->second != s.subnet) {
      ++stats_.other_subnet_samples;  // the same key in a later subnet: not this port's reading
      return events;
    }
  }
  ++stats_.samples;
  // A port's PortExtendedSpeedsCounters layout can change (a retrain to another speed): the
  // fields both layouts have feed the same counters, the others their own.
  const auto fields = schema::fields_of(s.attribute, s.layout);
  const auto sinks = schema::sinks_of(s.attribute, s.layout);
  if (s.failure != MadFailure::kNone) {
    ++stats_.failed_samples;
    if (s.cleared != 0) {  // our Set got no answer: the old baseline stays, nothing is lost
      stats_.own_clears_failed += static_cast<uint64_t>(std::popcount(s.cleared));
      clears_asked_.erase(clear_key(s.port, s.attribute));
      events.clear_failed = true;
    }
    return events;
  }
  if (s.attribute == Attribute::kPortSamplesResult ||
      s.attribute == Attribute::kPortSamplesResultExtended) {
    apply_vl_sample(s);
    return events;
  }
  if (s.attribute == Attribute::kPortSamplesControl) {
    // The node's answer (collector::sample_control_tick): its PortXmitWait tick.
    if (s.field_count > 0) node_ticks_[s.port.node_guid] = static_cast<uint8_t>(s.values[0]);
    return events;
  }
  if (sinks.empty()) return events;
  PortState& p = port(s.port, slot);
  const size_t attribute_slot = slot_of(s.attribute);
  const Clock::time_point previous = p.last_read[attribute_slot];
  // The first reading of the port (checked only when this attribute's is).
  if (previous == Clock::time_point{} && p.last_read_any() == Clock::time_point{} &&
      starts_without_history(p, s.port)) {
    // Its totals restart from this reading, under the same ifIndex and series: marked and
    // counted once.
    p.discontinuity = s.received;
    ++stats_.restarted_ports;
  }
  const Clock::duration dt =
      previous == Clock::time_point{} ? Clock::duration::zero() : s.received - previous;
  p.last_read[attribute_slot] = s.received;
  const bool wide = s.attribute == Attribute::kPortCountersExtended;
  if (wide) p.ietf_extended = (s.advertised >> kUnicastXmitField & 1) != 0;
  if (s.attribute == Attribute::kPortFlowCtlCounters) p.flow_control_counted = true;
  if (s.cleared != 0) note_clear_window(p, s, dt);
  // The fields that are this port's counters, in field order.
  const size_t count = std::min(sinks.size(), size_t{s.field_count});
  uint64_t todo = s.advertised & ~s.superseded & ((uint64_t{1} << count) - 1);
  const Source source = wide ? Source::kWide : Source::kNarrow;
  const uint64_t held = p.restored || s.narrow_fallback ? held_back(p, s, todo, source) : 0;
  todo &= ~held;
  const bool maybe_own_clear = s.cleared != 0 || (wide && p.own_clear_since_extended);
  const double dt_seconds = seconds(dt);
  const bool vl_waits = s.attribute == Attribute::kPortVLXmitWaitCounters;
  uint64_t exact = 0;  // fields whose delta holds every count since the last reading
  for (; todo != 0; todo &= todo - 1) {
    const auto i = static_cast<size_t>(std::countr_zero(todo));
    const size_t c = sinks[i].counter;
    const bool core = c < kCoreCounterCount;
    const Outcome o =
        core && !maybe_own_clear
            ? accumulate_core(p.core, c, {s.values[i], fields[i].width, fields[i].scale, source})
            : apply_field(p, s, fields[i], c, i, events);
    const bool exact_delta = !o.first && !o.lossy && !o.foreign_clear && !o.source_switch;
    exact |= uint64_t{exact_delta} << i;
    if (o.lossy) {
      ++p.lossy_intervals;
      ++stats_.lossy_intervals;
    }
    if (o.foreign_clear || o.source_switch) {
      p.discontinuity = s.received;
      (o.foreign_clear ? p.foreign_clears : p.source_switches)++;
      (o.foreign_clear ? stats_.foreign_clears : stats_.source_switches)++;
      events.foreign_clear |= o.foreign_clear;
    }
    if (core) {
      p.present |= uint64_t{1} << c;
      if (dt > Clock::duration::zero())
        p.rates[c] = static_cast<float>(static_cast<double>(o.delta) / dt_seconds);
    } else if (vl_waits && dt > Clock::duration::zero()) {
      set_vl_wait_rate(p, c, exact_delta ? static_cast<double>(o.delta) / dt_seconds : kNaN);
    }
  }
  if (dt > Clock::duration::zero()) add_coverage(p, s, exact, dt);
  if (wide) p.own_clear_since_extended = false;
  if (s.cleared != 0) {
    clears_asked_.erase(clear_key(s.port, s.attribute));
    if (s.attribute == Attribute::kPortCounters) p.own_clear_since_extended = true;
  }
  // A held field's clear would answer a baseline it does not have yet.
  events.clear_requested = held == 0 && maybe_ask_clear(s);
  return events;
}

void Converter::add_coverage(PortState& p, const RawSample& s, uint64_t exact, Clock::duration dt) {
  const CoverageFields& f = coverage_fields(s.attribute, s.layout);
  const auto ms = static_cast<uint32_t>(
      std::chrono::round<std::chrono::milliseconds>(dt).count());  // wraps, as documented
  if ((exact & f.symbol) != 0) p.covered_symbol_ms += ms;
  if (f.fec != 0 && (exact & f.fec) == f.fec) p.covered_fec_ms += ms;
}

// A field off the common path: a per-VL / per-lane counter, or one our clear may have reset.
Outcome Converter::apply_field(PortState& p, const RawSample& s, const schema::Field& f, size_t c,
                               size_t i, ApplyEvents& events) {
  const bool wide = s.attribute == Attribute::kPortCountersExtended;
  const Reading r{s.values[i], f.width, f.scale, wide ? Source::kWide : Source::kNarrow};
  const bool cleared = s.cleared >> i & 1;
  if (c < kCoreCounterCount) {
    CounterState st = p.core[c];
    const Outcome out = apply_reading(p, st, r, cleared, events);
    p.core.set(c, st);
    return out;
  }

  // Extra counters are kept packed (ExtraCounters): widened for the rules, then stored.
  const size_t e = c - kCoreCounterCount;
  const std::optional<ExtraCounterState> stored =
      p.extra ? p.extra->find(e) : std::optional<ExtraCounterState>();
  const ExtraCounterState before = stored ? *stored : ExtraCounterState{};
  CounterState st = before.widen();
  const Outcome out = apply_reading(p, st, r, cleared, events);
  ExtraCounterState after;
  after.assign(st);
  // Most per-VL, per-lane and error counters stay still between reads: an unchanged one leaves
  // the block shared with the snapshots that hold it, instead of copying all of it.
  if (stored && after == before) return out;
  writable_extra(p).set(e, after);
  return out;
}

}  // namespace ibpulse::converters
