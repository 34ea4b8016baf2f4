#include "ibpulse/converters/converter.h"

#include <algorithm>
#include <bit>
#include <cassert>

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

constexpr size_t kUnicastXmitField = 4;  // PortCountersExtended: advertised with CapMask 0x200

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

Converter::Converter(ConverterOptions options, collector::ClearRing* clears)
    : options_(options), clears_(clears) {}

void Converter::set_topology(std::shared_ptr<const collector::Topology> topology) {
  topology_ = std::move(topology);
  if (topology_) if_indexes_.assign(*topology_);
}

Converter::PortState& Converter::port(collector::PortKey key) {
  const auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(ports_.size()));
  if (added) {
    ports_.emplace_back();
    keys_.push_back(key);
  }
  return ports_[it->second];
}

const Converter::PortState* Converter::state(collector::PortKey key) const {
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &ports_[it->second];
}

void Converter::for_each_port(
    const std::function<void(collector::PortKey, const PortState&)>& f) const {
  for (size_t i = 0; i < ports_.size(); ++i)
    f(keys_[i], ports_[i]);
}

void Converter::restore_port(collector::PortKey key, PortState state) {
  port(key) = std::move(state);
}

void Converter::restore_vl_traffic(collector::PortKey key, PortVlTraffic traffic) {
  vl_traffic_[key] = std::make_shared<PortVlTraffic>(traffic);
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
  ApplyEvents events;
  ++stats_.samples;
  const auto fields = schema::fields_of(s.attribute);
  const auto sinks = schema::sinks_of(s.attribute);
  if (s.failure != MadFailure::kNone) {
    ++stats_.failed_samples;
    if (s.cleared != 0) {  // our Set got no answer: the old baseline stays, nothing is lost
      stats_.own_clears_failed += static_cast<uint64_t>(std::popcount(s.cleared));
      port(s.port).clear_asked[slot_of(s.attribute)] = {};
      events.clear_failed = true;
    }
    return events;
  }
  if (s.attribute == Attribute::kPortSamplesResult ||
      s.attribute == Attribute::kPortSamplesResultExtended) {
    apply_vl_sample(s);
    return events;
  }
  if (sinks.empty()) return events;
  PortState& p = port(s.port);
  const size_t slot = slot_of(s.attribute);
  const Clock::time_point previous = p.last_read[slot];
  const Clock::duration dt =
      previous == Clock::time_point{} ? Clock::duration::zero() : s.received - previous;
  p.last_read[slot] = s.received;
  p.last_read_any = std::max(p.last_read_any, s.received);
  if (s.attribute == Attribute::kPortCountersExtended)
    p.ietf_extended = (s.advertised >> kUnicastXmitField & 1) != 0;
  if (s.attribute == Attribute::kPortFlowCtlCounters) p.flow_control_counted = true;
  if (s.cleared != 0) note_clear_window(p, s, dt);
  for (size_t i = 0; i < sinks.size() && i < s.field_count; ++i) {
    if ((s.advertised >> i & 1) == 0 || (s.superseded >> i & 1) != 0) continue;
    apply_field(p, s, fields[i], sinks[i].counter, i, dt, events);
  }
  if (s.attribute == Attribute::kPortCountersExtended) p.own_clear_since_extended = false;
  if (s.cleared != 0) {
    p.clear_asked[slot] = {};
    if (s.attribute == Attribute::kPortCounters) p.own_clear_since_extended = true;
  }
  events.clear_requested = maybe_ask_clear(p, s);
  return events;
}

void Converter::apply_field(PortState& p, const RawSample& s, const schema::Field& f, size_t c,
                            size_t i, Clock::duration dt, ApplyEvents& events) {
  const bool wide = s.attribute == Attribute::kPortCountersExtended;
  const Reading r{s.values[i], f.width, f.scale, wide ? Source::kWide : Source::kNarrow};
  const bool core = c < kCoreCounterCount;
  if (!core && (!p.extra || p.extra.use_count() > 1)) {
    // Snapshots share the extra counters: copy before writing if one still holds them.
    p.extra = p.extra ? std::make_shared<std::vector<CounterState>>(*p.extra)
                      : std::make_shared<std::vector<CounterState>>(schema::extra_counter_count());
  }
  CounterState& st = core ? p.core[c] : (*p.extra)[c - kCoreCounterCount];
  Outcome o;
  if ((s.cleared >> i & 1) != 0) {
    rebase(st, r);  // the Set's response: the value after our clear
    ++p.own_clears;
    ++stats_.own_clears;
    events.own_clear = true;
  } else if (wide && p.own_clear_since_extended && st.source == Source::kWide &&
             r.raw < st.last_raw) {
    rebase(st, r);  // hardware that clears the 64-bit copy with PortCounters: our clear
  } else {
    o = accumulate(st, r);
  }
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
      p.rates[c] = static_cast<float>(static_cast<double>(o.delta) / seconds(dt));
  }
}

void Converter::note_clear_window(PortState& p, const RawSample& s, Clock::duration dt) {
  // The counts between our last read and the clear are lost: report the time and, from the
  // current rate, an upper bound.
  stats_.clear_window_seconds += seconds(dt);
  const auto sinks = schema::sinks_of(s.attribute);
  for (size_t i = 0; i < sinks.size(); ++i) {
    if ((s.cleared >> i & 1) == 0 || sinks[i].counter >= kCoreCounterCount) continue;
    stats_.clear_window_lost_max +=
        static_cast<uint64_t>(static_cast<double>(p.rates[sinks[i].counter]) * seconds(dt) + 0.999);
  }
}

bool Converter::maybe_ask_clear(PortState& p, const RawSample& s) {
  if (options_.clear_policy != ClearPolicy::kThreshold || clears_ == nullptr) return false;
  if (s.attribute == Attribute::kPortCountersExtended) return false;  // 64-bit: never latches
  const size_t slot = slot_of(s.attribute);
  if (p.clear_asked[slot] != Clock::time_point{} &&
      s.received - p.clear_asked[slot] < options_.clear_retry) {
    return false;  // one in flight
  }
  const auto fields = schema::fields_of(s.attribute);
  uint64_t mask = 0;
  for (size_t i = 0; i < fields.size() && i < s.field_count; ++i) {
    if ((s.advertised >> i & 1) == 0 || (s.superseded >> i & 1) != 0) continue;
    if (fields[i].width >= 64 || fields[i].select == schema::SelectMask::kNone) continue;
    if (fill_ratio(s.values[i], fields[i].width) >= options_.clear_fraction) {
      mask |= uint64_t{1} << i;
    }
  }
  if (mask == 0) return false;
  if (!clears_->push(collector::ClearRequest{s.port, s.attribute, mask})) {
    ++stats_.clear_requests_dropped;
    return false;
  }
  ++stats_.clear_requests;
  p.clear_asked[slot] = s.received;
  return true;
}

}  // namespace ibpulse::converters
