#include "ibpulse/collector/sweep.h"

#include <set>

namespace ibpulse::collector {
namespace {

using Clock = std::chrono::steady_clock;

// Node GUID -> a dense index for the engine's per-node limits.
std::map<uint64_t, uint32_t> index_nodes(std::span<const SweepTarget> targets) {
  std::map<uint64_t, uint32_t> index;
  for (const auto& t : targets)
    index.emplace(t.key.node_guid, static_cast<uint32_t>(index.size()));
  return index;
}

}  // namespace

void read_capabilities(MadEngine& engine, std::span<const SweepTarget> targets,
                       CapabilityCache& cache) {
  const auto nodes = index_nodes(targets);
  std::vector<uint64_t> asked;
  for (const auto& t : targets) {
    if (cache.count(t.key.node_guid) != 0) continue;
    cache.emplace(t.key.node_guid, std::nullopt);
    asked.push_back(t.key.node_guid);
    engine.submit(pma_get(schema::Attribute::kClassPortInfo, t.lid, 0, nodes.at(t.key.node_guid),
                          asked.size() - 1));
  }
  drain(engine, [&](const MadCompletion& c) {
    if (c.failure == MadFailure::kNone) cache[asked[c.cookie]] = decode_class_port_info(c.data);
  });
}

bool worth_reading(schema::Attribute attribute, const PmaCapabilities& caps) {
  if (attribute == schema::Attribute::kPortCountersExtended) return caps.extended_width();
  return true;
}

SweepResult sweep(MadEngine& engine, std::span<const SweepTarget> targets,
                  std::span<const schema::Attribute> attributes, CapabilityCache& capabilities,
                  const SweepProgress& progress) {
  const auto started = Clock::now();
  const auto nodes = index_nodes(targets);
  read_capabilities(engine, targets, capabilities);

  SweepResult result;
  result.samples.reserve(targets.size() * attributes.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    const auto& caps = capabilities[t.key.node_guid];
    for (auto attribute : attributes) {
      // A node that did not answer ClassPortInfo is still tried with the mandatory counters.
      if (caps ? !worth_reading(attribute, *caps) : attribute != schema::Attribute::kPortCounters) {
        continue;
      }
      RawSample s;
      s.port = t.key;
      s.attribute = attribute;
      result.samples.push_back(s);
      engine.submit(pma_get(attribute, t.lid, t.key.port, nodes.at(t.key.node_guid),
                            result.samples.size() - 1));
    }
  }
  const size_t total = result.samples.size();
  size_t done = 0;
  std::set<PortKey> failed;
  drain(engine, [&](const MadCompletion& c) {
    RawSample& s = result.samples[c.cookie];
    s.received = c.received;
    s.failure = c.failure;
    s.mad_status = c.mad_status;
    if (c.failure == MadFailure::kNone) {
      decode_fields(s.attribute, c.data, s);
    } else {
      failed.insert(s.port);
    }
    if (progress && (++done % 1024 == 0 || done == total)) progress(done, total);
  });
  result.ports_failed = failed.size();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace ibpulse::collector
