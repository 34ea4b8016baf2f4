#include "node_capabilities.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibpulse::collector {

void NodeCapabilities::ask(MadEngine& engine, std::span<const SweepTarget> targets, bool refresh,
                           Clock::time_point now, const Warn& warn) {
  attempts_.clear();
  const auto unanswered = read_capabilities(engine, targets, cache_, refresh);
  // A refresh asks every node: one given up on that answered now is known again.
  if (refresh) {
    std::erase_if(given_up_, [&](uint64_t guid) {
      return std::find(unanswered.begin(), unanswered.end(), guid) == unanswered.end();
    });
  }
  note_unanswered(unanswered, now, warn);
  if (any_pending()) {
    warn(
        fmt::format("event=class_port_info_pending nodes={} first={} note=\"no ClassPortInfo "
                    "answer (lost MADs?): their ports are not read until one comes\"",
                    attempts_.size(), guid_string(attempts_.begin()->first)));
  }
}

bool NodeCapabilities::retry_due(MadEngine& engine, std::span<const SweepTarget> targets,
                                 Clock::time_point now, const Warn& warn) {
  if (attempts_.empty() || now < next_retry_) return false;
  std::vector<SweepTarget> asked;
  for (const SweepTarget& t : targets)
    if (attempts_.contains(t.key.node_guid)) asked.push_back(t);
  std::map<uint64_t, unsigned> before;
  before.swap(attempts_);  // nodes no longer polled are forgotten
  const auto unanswered = read_capabilities(engine, asked, cache_);
  for (const uint64_t guid : unanswered)
    attempts_[guid] = before[guid];
  note_unanswered(unanswered, now, warn);
  return attempts_.size() != before.size();
}

void NodeCapabilities::note_unanswered(const std::vector<uint64_t>& unanswered,
                                       Clock::time_point now, const Warn& warn) {
  for (const uint64_t guid : unanswered) {
    if (cache_.contains(guid)) continue;  // an earlier answer stands
    if (++attempts_[guid] < kMaxAttempts) continue;
    attempts_.erase(guid);
    cache_[guid] = std::nullopt;
    given_up_.insert(guid);
    warn(
        fmt::format("event=class_port_info_unanswered node_guid={} attempts={} note=\"read as "
                    "a PMA without capabilities (narrow counters) until a discovery asks again\"",
                    guid_string(guid), kMaxAttempts));
  }
  next_retry_ = now + retry_interval_;
}

const PmaCapabilities* NodeCapabilities::find(uint64_t guid) const {
  const auto found = cache_.find(guid);
  return found != cache_.end() && found->second ? &*found->second : nullptr;
}

}  // namespace ibpulse::collector
