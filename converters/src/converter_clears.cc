// Our own clears (the `threshold` clear policy): when a narrow counter is asked to be cleared,
// and handing the requests to the pollers, at once or after the caller saved the state.
#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/width.h"

namespace ibpulse::converters {

using collector::RawSample;
using schema::Attribute;

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

bool Converter::maybe_ask_clear(const RawSample& s) {
  if (options_.clear_policy != ClearPolicy::kThreshold || clears_ == nullptr) return false;
  if (s.attribute == Attribute::kPortCountersExtended) return false;  // 64-bit: never latches
  // A clear names fields of the attribute's standard layout (ClearRequest has no layout); the
  // RS-FEC layout's fields have no known select bits (schema/src/fields.cc) anyway.
  if (s.layout != schema::Layout::kStandard) return false;
  const auto key = clear_key(s.port, s.attribute);
  const auto asked = clears_asked_.find(key);
  if (asked != clears_asked_.end() && s.received - asked->second < options_.clear_retry) {
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
  const collector::ClearRequest request{s.port, s.attribute, mask};
  if (options_.hold_clears) {
    held_clears_.push_back(request);
  } else if (!clears_->push(request)) {
    ++stats_.clear_requests_dropped;
    return false;
  }
  ++stats_.clear_requests;
  clears_asked_[key] = s.received;
  return true;
}

std::vector<collector::ClearRequest> Converter::take_held_clears() {
  std::vector<collector::ClearRequest> out;
  out.swap(held_clears_);
  return out;
}

void Converter::release_clears(const std::vector<collector::ClearRequest>& clears) {
  for (const collector::ClearRequest& r : clears) {
    if (clears_ != nullptr && clears_->push(r)) continue;
    ++stats_.clear_requests_dropped;
    clears_asked_.erase(clear_key(r.port, r.attribute));  // asked again at its next reading
  }
}

void Converter::note_clear_window(PortState& p, const RawSample& s, Clock::duration dt) {
  // The counts between our last read and the clear are lost: report the time and, from the
  // current rate, an upper bound. A clear's answer dated before the last reading (samples of
  // several pollers arrive out of time order) spans no time: a negative bound would wrap.
  if (dt <= Clock::duration::zero()) return;
  stats_.clear_window_seconds += seconds(dt);
  const auto sinks = schema::sinks_of(s.attribute, s.layout);
  for (size_t i = 0; i < sinks.size(); ++i) {
    if ((s.cleared >> i & 1) == 0 || sinks[i].counter >= schema::kCoreCounterCount) continue;
    stats_.clear_window_lost_max +=
        static_cast<uint64_t>(static_cast<double>(p.rates[sinks[i].counter]) * seconds(dt) + 0.999);
  }
}

}  // namespace ibpulse::converters
