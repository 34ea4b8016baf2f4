#include "ibpulse/converters/one_shot.h"

#include "ibpulse/converters/converter.h"

namespace ibpulse::converters {

std::optional<PortSnapshot> one_shot_port(std::span<const collector::RawSample> samples,
                                          collector::PortKey key) {
  using schema::Attribute;
  // As the poller marks it: PortCounters fields whose 64-bit copy the port advertises are not
  // their counters' source.
  uint64_t superseded = 0;
  for (const auto& s : samples) {
    if (s.attribute == Attribute::kPortCountersExtended &&
        s.failure == collector::MadFailure::kNone)
      superseded = collector::superseded_fields(s.advertised);
  }
  Converter converter(ConverterOptions{});
  for (const auto& s : samples) {
    if (s.port != key) continue;
    collector::RawSample copy = s;
    if (copy.attribute == Attribute::kPortCounters) copy.superseded = superseded;
    converter.apply(copy);
  }
  const auto snapshot = converter.snapshot(Clock::now());
  const auto* port = snapshot->find(key);
  if (port == nullptr || !port->has(schema::CounterId::kRcvData) ||
      !port->has(schema::CounterId::kXmitData))
    return std::nullopt;
  return *port;
}

}  // namespace ibpulse::converters
