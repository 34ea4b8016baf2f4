#include "ibpulse/collector/testing/fake_mad_engine.h"

#include <algorithm>

#include "ibpulse/base/check.h"
#include "mad_codec.h"

namespace ibpulse::collector::testing {
namespace {

constexpr unsigned kMaxBackoffShift = 3;  // as the real engine: at most 8 x the first timeout

// splitmix64: a portable, seeded sequence (std's distributions differ between libraries).
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

FakeMadEngine::FakeMadEngine(FakeFabric& fabric, VirtualClock& clock,
                             const MadEngineOptions& options, uint64_t seed)
    : fabric_(fabric), clock_(clock), options_(options), rng_(seed) {
  IBPULSE_CHECK(options.window > 0 && options.per_node > 0);
}

Status FakeMadEngine::enable_smp(bool enabled) {
  if (enabled && !fabric_.smp_agent) return Err("the fake fabric answers no SMPs");
  smp_enabled_ = enabled;
  return Ok{};
}

void FakeMadEngine::submit(const MadRequest& request) {
  const uint64_t id = next_id_++;
  pending_[id] = Pending{request, 0, id};
  queues_[request.node].push_back(id);
  ++queued_;
  fabric_.max_queued = std::max(fabric_.max_queued, queued_);
}

bool FakeMadEngine::lost(double loss) {
  if (loss <= 0) return false;
  const double draw = static_cast<double>(next_random(rng_) >> 11) * 0x1.0p-53;  // [0, 1)
  return draw < loss;
}

std::optional<uint64_t> FakeMadEngine::next_ready_node() const {
  std::optional<uint64_t> best;
  uint64_t best_order = 0;
  for (const auto& [node, queue] : queues_) {
    if (queue.empty()) continue;
    const auto in_flight = node_in_flight_.find(node);
    if (in_flight != node_in_flight_.end() && in_flight->second >= options_.per_node) continue;
    const uint64_t order = pending_.at(queue.front()).order;
    if (!best || order < best_order) {
      best = node;
      best_order = order;
    }
  }
  return best;
}

size_t FakeMadEngine::fill_window(const CompletionFn& on_done) {
  size_t done = 0;
  while (flights_.size() < options_.window) {
    const auto node = next_ready_node();
    if (!node) break;
    auto& queue = queues_[static_cast<uint32_t>(*node)];
    const uint64_t id = queue.front();
    queue.pop_front();
    --queued_;
    done += send(id, on_done);
  }
  return done;
}

size_t FakeMadEngine::send(uint64_t id, const CompletionFn& on_done) {
  Pending& p = pending_.at(id);
  const auto timeout = options_.timeout * (1u << std::min(p.attempts, kMaxBackoffShift));
  ++p.attempts;
  if (p.request.mgmt_class != MadClass::kPerformance && !smp_enabled_) {
    ++stats_.failed_for(MadFailure::kSendError);
    complete(id, MadFailure::kSendError, 0, {}, on_done);
    return 1;
  }
  ++stats_.sent;
  if (p.attempts > 1) ++stats_.retried;
  const uint64_t attempt = next_attempt_++;
  Flight f;
  f.pending = id;
  f.guid = local_port_down_ ? 0 : fabric_.node_at(p.request.lid);
  const auto now = clock_.now();
  if (f.guid == 0) {
    f.fate = Fate::kReturned;  // no such LID (or no local port): back at once, as ibsim does
    events_.push(Event{now, EventKind::kArrival, attempt});
  } else {
    fabric_.note_attempt(p.request);
    FakeNode& node = fabric_.node(f.guid);
    const auto scripted = node.lose_next.find(p.request.attribute);
    const bool smp = p.request.mgmt_class != MadClass::kPerformance;
    const bool scripted_loss = !smp && scripted != node.lose_next.end() && scripted->second > 0;
    if (scripted_loss) --scripted->second;
    const bool lose = scripted_loss || (smp && node.smp_lost.contains(p.request.attribute));
    if (node.unreachable) {
      f.fate = Fate::kReturned;
    } else if (lose || lost(node.loss)) {
      f.fate = Fate::kLost;
    } else {
      f.status = fabric_.answer(p.request, f.data);
    }
    if (f.fate != Fate::kLost)
      events_.push(Event{now + node.latency, EventKind::kArrival, attempt});
    WireRecord& wire = fabric_.wire(f.guid);
    wire.max_in_flight = std::max(wire.max_in_flight, ++model_in_flight_[f.guid]);
  }
  ++node_in_flight_[p.request.node];
  events_.push(Event{now + timeout, EventKind::kDeadline, attempt});
  flights_.emplace(attempt, f);
  fabric_.max_in_flight = std::max(fabric_.max_in_flight, static_cast<unsigned>(flights_.size()));
  return 0;
}

size_t FakeMadEngine::poll(std::chrono::milliseconds max_wait, const CompletionFn& on_done) {
  const auto until = clock_.now() + max_wait;
  size_t done = 0;
  while (!idle()) {
    done += fill_window(on_done);
    if (events_.empty()) break;  // everything sent failed at once
    const Event e = events_.top();
    if (e.at > until) {
      // Nothing can be sent before a reply: the real engine waits past max_wait for one.
      const bool blocked =
          flights_.size() >= options_.window || (queued_ > 0 && !next_ready_node());
      if (done > 0 || !blocked) {
        clock_.advance_to(until);
        break;
      }
    }
    events_.pop();
    clock_.advance_to(e.at);
    done += process(e, on_done);
  }
  return done;
}

size_t FakeMadEngine::process(const Event& e, const CompletionFn& on_done) {
  const auto it = flights_.find(e.attempt);
  if (it == flights_.end()) {
    if (e.kind == EventKind::kArrival) ++stats_.stale_replies;  // its attempt timed out
    return 0;
  }
  const Flight f = it->second;
  flights_.erase(it);
  --node_in_flight_[pending_.at(f.pending).request.node];
  if (f.guid != 0) --model_in_flight_[f.guid];
  if (e.kind == EventKind::kDeadline) {
    ++stats_.attempt_timeouts;
    return retry_or_fail(f.pending, MadFailure::kTimeout, on_done);
  }
  if (f.fate == Fate::kReturned) {
    ++stats_.attempt_unreachable;
    return retry_or_fail(f.pending, MadFailure::kUnreachable, on_done);
  }
  ++stats_.answered;
  switch (classify_status(f.status)) {
    case MadStatusKind::kBusy:
      return retry_or_fail(f.pending, MadFailure::kTimeout, on_done);
    case MadStatusKind::kRedirect:
      ++stats_.failed_for(MadFailure::kRedirect);
      complete(f.pending, MadFailure::kRedirect, f.status, {}, on_done);
      return 1;
    case MadStatusKind::kError:
      ++stats_.failed_for(MadFailure::kStatus);
      complete(f.pending, MadFailure::kStatus, f.status, {}, on_done);
      return 1;
    case MadStatusKind::kOk:
      break;
  }
  complete(f.pending, MadFailure::kNone, f.status, f.data, on_done);
  return 1;
}

size_t FakeMadEngine::retry_or_fail(uint64_t id, MadFailure failure, const CompletionFn& on_done) {
  Pending& p = pending_.at(id);
  if (p.attempts <= options_.retries) {
    queues_[p.request.node].push_front(id);
    ++queued_;
    return 0;
  }
  ++stats_.failed_for(failure);
  complete(id, failure, 0, {}, on_done);
  return 1;
}

void FakeMadEngine::complete(uint64_t id, MadFailure failure, uint16_t status,
                             std::span<const uint8_t> data, const CompletionFn& on_done) {
  const Pending p = pending_.at(id);
  pending_.erase(id);  // first: the callback may submit new requests
  MadCompletion c;
  c.cookie = p.request.cookie;
  c.failure = failure;
  c.mad_status = status;
  c.attempts = p.attempts;
  c.received = clock_.now();
  c.data = data;
  on_done(c);
}

}  // namespace ibpulse::collector::testing
