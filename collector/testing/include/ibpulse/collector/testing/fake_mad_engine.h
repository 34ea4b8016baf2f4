#pragma once
// A MadEngine that answers from a FakeFabric on a VirtualClock: the poller's scheduling,
// accounting and read planning tested without the simulator and without waiting.
//
// Modelled as the real engine (collector/src/mad_engine.cc) does it:
// - the window and the per-node limit (MadRequest::node), oldest request first across nodes;
// - each attempt's timeout, doubled on every retry (at most 8x), `retries` retries; a retry
//   goes first in its node's line;
// - outcomes: an answer (MAD status busy: retried like a timeout; redirect and error statuses:
//   failed at once), an attempt returned undelivered (retried, then kUnreachable), no answer
//   (timed out at its deadline, retried, then kTimeout), an answer after its attempt's
//   deadline (counted as a stale reply); MadStats counted the same way;
// - SMPs (FakeFabric::smp_agent; else enable_smp(true) fails, as when the class cannot be
//   registered) share the window and node limits with PMA requests, as the real engine's do;
//   while the SMP class is not enabled they fail with kSendError.
// Per attempt the node's FakeNode decides: unreachable (returned after its latency; a LID no
// node has: returned at once, as ibsim does), lost (a seeded draw: deterministic for a given
// order of requests), else answered after its latency with the FakeFabric's answer taken
// when the attempt was sent. Every attempt to a node is recorded (FakeFabric::wire).
// poll() advances the clock to each next event instead of waiting; like the real engine it
// returns at `max_wait` unless nothing could be sent before a reply, and early once idle.
// Not modelled: TIDs (attempts are matched exactly), send errors other than SMPs', the
// kernel's queues, umad2sim's stall past ~300 MADs in flight.
//
// Thread safety: as MadEngine: one thread.

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <tuple>
#include <vector>

#include "ibpulse/collector/mad_engine.h"
#include "ibpulse/collector/testing/fake_fabric.h"
#include "ibpulse/collector/testing/virtual_clock.h"

namespace ibpulse::collector::testing {

class FakeMadEngine final : public MadEngine {
 public:
  // `fabric` and `clock` must outlive the engine. `seed` drives the loss draws.
  FakeMadEngine(FakeFabric& fabric, VirtualClock& clock, const MadEngineOptions& options,
                uint64_t seed = 1);

  Status enable_smp(bool enabled) override;
  bool smp_enabled() const override { return smp_enabled_; }
  void submit(const MadRequest& request) override;
  size_t poll(std::chrono::milliseconds max_wait, const CompletionFn& on_done) override;
  bool idle() const override { return queued_ == 0 && flights_.empty(); }
  size_t queued() const override { return queued_; }
  const MadStats& stats() const override { return stats_; }
  const MadEngineOptions& options() const override { return options_; }
  // The engine's local port is down (unplugged, its HCA failed): every attempt comes back
  // undelivered at once and reaches no node, as umad returns status 110 for an unusable path.
  void set_local_port_down(bool down) { local_port_down_ = down; }

 private:
  using Clock = VirtualClock::Clock;
  struct Pending {
    MadRequest request;
    unsigned attempts = 0;
    uint64_t order = 0;
  };
  enum class Fate : uint8_t { kAnswer, kReturned, kLost };
  struct Flight {
    uint64_t pending = 0;
    uint64_t guid = 0;  // the model node reached (0: no node has the LID)
    Fate fate = Fate::kAnswer;
    uint16_t status = 0;
    std::array<uint8_t, kMadDataSize> data{};
  };
  enum class EventKind : uint8_t { kArrival, kDeadline };  // arrivals first at equal times
  struct Event {
    Clock::time_point at;
    EventKind kind = EventKind::kArrival;
    uint64_t attempt = 0;
    bool operator>(const Event& o) const {
      return std::tie(at, kind, attempt) > std::tie(o.at, o.kind, o.attempt);
    }
  };

  size_t fill_window(const CompletionFn& on_done);
  size_t send(uint64_t id, const CompletionFn& on_done);
  size_t process(const Event& e, const CompletionFn& on_done);
  size_t retry_or_fail(uint64_t id, MadFailure failure, const CompletionFn& on_done);
  void complete(uint64_t id, MadFailure failure, uint16_t status, std::span<const uint8_t> data,
                const CompletionFn& on_done);
  std::optional<uint64_t> next_ready_node() const;
  bool lost(double loss);

  FakeFabric& fabric_;
  VirtualClock& clock_;
  MadEngineOptions options_;
  uint64_t rng_;
  MadStats stats_;
  std::map<uint64_t, Pending> pending_;              // by id
  std::map<uint32_t, std::deque<uint64_t>> queues_;  // per MadRequest::node
  std::map<uint32_t, unsigned> node_in_flight_;      // per MadRequest::node
  std::map<uint64_t, unsigned> model_in_flight_;     // per model node GUID
  std::map<uint64_t, Flight> flights_;               // by attempt
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t next_id_ = 0, next_attempt_ = 0;
  size_t queued_ = 0;
  bool local_port_down_ = false;
  bool smp_enabled_ = false;
};

}  // namespace ibpulse::collector::testing
