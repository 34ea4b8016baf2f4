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

std::vector<uint64_t> read_capabilities(MadEngine& engine, std::span<const SweepTarget> targets,
                                        CapabilityCache& cache, bool refresh) {
  const auto nodes = index_nodes(targets);
  std::vector<uint64_t> asked;
  std::set<uint64_t> seen;
  for (const auto& t : targets) {
    if (!seen.insert(t.key.node_guid).second || (!refresh && cache.contains(t.key.node_guid)))
      continue;
    asked.push_back(t.key.node_guid);
    engine.submit(pma_get(schema::Attribute::kClassPortInfo, t.lid, 0, nodes.at(t.key.node_guid),
                          asked.size() - 1));
  }
  std::vector<bool> settled(asked.size(), false);
  drain(engine, [&](const MadCompletion& c) {
    if (c.failure == MadFailure::kNone) {
      cache[asked[c.cookie]] = decode_class_port_info(c.data);
    } else if (c.failure == MadFailure::kStatus || c.failure == MadFailure::kRedirect) {
      cache[asked[c.cookie]] = std::nullopt;  // answered: none to give here
    } else {
      return;
    }
    settled[c.cookie] = true;
  });
  std::vector<uint64_t> unanswered;
  for (size_t i = 0; i < asked.size(); ++i)
    if (!settled[i]) unanswered.push_back(asked[i]);
  return unanswered;
}

bool worth_reading(schema::Attribute attribute, const PmaCapabilities& caps) {
  if (attribute == schema::Attribute::kPortCountersExtended) return caps.extended_width();
  return true;
}

namespace {

// Whether a read must wait for the node's ClassPortInfo (only PortCountersExtended does).
bool needs_capabilities(schema::Attribute attribute) {
  return attribute == schema::Attribute::kPortCountersExtended;
}

constexpr uint64_t kClassPortInfoCookie = uint64_t{1} << 63;

}  // namespace

SweepResult sweep(MadEngine& engine, std::span<const SweepTarget> targets,
                  std::span<const schema::Attribute> attributes, CapabilityCache& capabilities,
                  const SweepProgress& progress) {
  const auto started = Clock::now();
  const auto nodes = index_nodes(targets);
  SweepResult result;
  result.samples.reserve(targets.size() * attributes.size());
  const auto read = [&](const SweepTarget& t, schema::Attribute attribute) {
    RawSample s;
    s.port = t.key;
    s.attribute = attribute;
    if (attribute == schema::Attribute::kPortExtendedSpeedsCounters) s.layout = t.ext_speeds_layout;
    result.samples.push_back(s);
    engine.submit(pma_get(attribute, t.lid, t.key.port, nodes.at(t.key.node_guid),
                          result.samples.size() - 1));
  };
  const auto read_gated = [&](const SweepTarget& t) {
    const auto& caps = capabilities[t.key.node_guid];
    if (!caps) return;
    for (auto attribute : attributes) {
      if (needs_capabilities(attribute) && worth_reading(attribute, *caps)) read(t, attribute);
    }
  };

  // ClassPortInfo of unknown nodes travels with the reads that do not depend on it; a node's
  // gated reads follow its answer. One pipeline, no round trip in between.
  std::vector<uint64_t> asked;
  std::map<uint64_t, std::vector<size_t>> waiting;  // node GUID -> targets
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    if (!capabilities.contains(t.key.node_guid)) {
      capabilities.emplace(t.key.node_guid, std::nullopt);
      engine.submit(pma_get(schema::Attribute::kClassPortInfo, t.lid, 0, nodes.at(t.key.node_guid),
                            kClassPortInfoCookie | asked.size()));
      asked.push_back(t.key.node_guid);
      waiting[t.key.node_guid];  // asked this sweep: its gated reads wait for the answer
    }
    for (auto attribute : attributes) {
      if (!needs_capabilities(attribute)) read(t, attribute);
    }
    if (auto w = waiting.find(t.key.node_guid); w != waiting.end()) {
      w->second.push_back(i);
    } else {
      read_gated(t);
    }
  }
  size_t done = 0;
  std::set<PortKey> failed;
  drain(engine, [&](const MadCompletion& c) {
    if (c.cookie & kClassPortInfoCookie) {
      const uint64_t guid = asked[c.cookie & ~kClassPortInfoCookie];
      if (c.failure == MadFailure::kNone) capabilities[guid] = decode_class_port_info(c.data);
      for (size_t i : waiting[guid])
        read_gated(targets[i]);
      return;
    }
    RawSample& s = result.samples[c.cookie];
    s.received = c.received;
    s.failure = c.failure;
    s.mad_status = c.mad_status;
    if (c.failure == MadFailure::kNone) {
      decode_fields(s.attribute, s.layout, c.data, s);
    } else {
      failed.insert(s.port);
    }
    if (progress && (++done % 1024 == 0)) progress(done, result.samples.size());
  });
  if (progress) progress(done, result.samples.size());
  for (RawSample& s : result.samples) {  // every ClassPortInfo has answered (or failed) by now
    if (s.failure != MadFailure::kNone) continue;
    const auto& caps = capabilities[s.port.node_guid];
    s.advertised = advertised_fields(s.attribute, caps ? &*caps : nullptr, s.layout);
  }
  result.ports_failed = failed.size();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace ibpulse::collector
