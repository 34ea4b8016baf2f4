#include "fabric_snapshot.h"

#include <vector>

#include "ibpulse/collector/discovery.h"
#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/sweep.h"
#include "ibpulse/converters/converter.h"

namespace ibpulse::bench {

Result<std::shared_ptr<const converters::FabricSnapshot>> fabric_snapshot() {
  auto topology = collector::discover(collector::DiscoveryOptions{});
  if (!topology.ok()) return Error{topology.error()};
  auto shared = std::make_shared<const collector::Topology>(std::move(*topology));
  std::vector<collector::SweepTarget> targets;
  for (const auto& p : shared->ports)
    if (p.remote && p.active()) targets.push_back({p.key, p.lid});
  collector::MadEngineOptions options;
  options.window = collector::capped_window(options.window, collector::current_mad_environment());
  auto engine = collector::MadEngine::open("", 0, options);
  if (!engine.ok()) return Error{engine.error()};
  constexpr schema::Attribute kAttributes[] = {schema::Attribute::kPortCounters,
                                               schema::Attribute::kPortCountersExtended};
  collector::CapabilityCache caps;
  const collector::SweepResult read = collector::sweep(**engine, targets, kAttributes, caps);
  converters::Converter converter({});
  converter.set_topology(shared);
  for (const collector::RawSample& s : read.samples)
    converter.apply(s);
  return converter.snapshot(converters::Clock::now());
}

}  // namespace ibpulse::bench
