// Ports restored from the state file: put back before any sample of them, then continued only
// where their history allows.
#include <bit>

#include "ibpulse/converters/converter.h"

namespace ibpulse::converters {

void Converter::restore_port(collector::PortKey key, PortState state) {
  // Shown again once read again: a crash leaves totals up to a save interval old, and
  // exporting them before the first reading would make counters go down.
  state.present = 0;
  state.restored = true;
  state.held_since = {};
  port(key) = std::move(state);
  interfaces_.remember(key);  // reported notPresent if the topology no longer has it
}

void Converter::restore_vl_traffic(collector::PortKey key, PortVlTraffic traffic) {
  vl_traffic_[key] = std::make_shared<PortVlTraffic>(traffic);
  interfaces_.remember(key);
}

bool Converter::starts_without_history(const PortState& p, collector::PortKey key) {
  // Back after it was forgotten.
  if (!forgotten_.empty() && forgotten_.erase(key)) return true;
  // A shard taking up a port it has no saved state of: another shard may have exported it
  // (a change of shard.count or a dead replica's nodes). A new sharded deployment counts each
  // port once at its start: this shard cannot tell that case apart.
  return options_.shard.sharded() && !p.restored;
}

namespace {

// Bit per field of `todo` whose sink is a core counter in `counters`.
uint64_t fields_of_counters(schema::Attribute attribute, uint64_t todo, uint64_t counters) {
  const auto sinks = schema::sinks_of(attribute);
  uint64_t fields = 0;
  for (; todo != 0; todo &= todo - 1) {
    const auto i = static_cast<size_t>(std::countr_zero(todo));
    const size_t c = sinks[i].counter;
    if (c < schema::kCoreCounterCount && (counters >> c & 1) != 0) fields |= uint64_t{1} << i;
  }
  return fields;
}

}  // namespace

uint64_t Converter::held_back(PortState& p, const collector::RawSample& s, uint64_t todo,
                              Source source) {
  // Read from the 64-bit copy before, now read narrow only because the node's ClassPortInfo
  // went unanswered: held until the poller reads the 64-bit copy again (its next discovery).
  const uint64_t fallback =
      s.narrow_fallback && source == Source::kNarrow ? p.core.from(Source::kWide) : 0;
  // Restored, not read by this run yet, and saved from the other copy.
  const Source other = source == Source::kWide ? Source::kNarrow : Source::kWide;
  const uint64_t restored = p.restored ? p.core.from(other) & ~p.present & ~fallback : 0;
  if ((fallback | restored) == 0) return 0;
  uint64_t held = fields_of_counters(s.attribute, todo, fallback);
  uint64_t held_restored = fields_of_counters(s.attribute, todo, restored);
  if (held_restored != 0) {
    if (p.held_since == Clock::time_point{}) p.held_since = s.received;
    // Waited long enough: the saved copy is not read any more; a source switch follows.
    if (s.received - p.held_since >= options_.restored_source_wait) held_restored = 0;
  }
  held |= held_restored;
  if (held != 0) ++stats_.readings_held;
  return held;
}

}  // namespace ibpulse::converters
