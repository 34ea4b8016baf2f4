#include "ibpulse/collector/mad_engine.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>
#include <queue>
#include <random>
#include <vector>

#include "mad_codec.h"
#include "mad_engine_parts.h"
#include "umad_port.h"

namespace ibpulse::collector {
namespace {

constexpr int kPerformanceClass = 0x04;
constexpr int kSubnetLidClass = 0x01;

using namespace engine_detail;  // NOLINT(google-build-using-namespace): the engine's own parts

class UmadEngine final : public MadEngine {
 public:
  UmadEngine(std::unique_ptr<UmadPort> port, int agent, const MadEngineOptions& options)
      : port_(std::move(port)),
        agent_(agent),
        options_(options),
        next_tid_(static_cast<uint32_t>(std::random_device{}())),
        slots_(options.window) {
    for (uint32_t i = static_cast<uint32_t>(options.window); i-- > 0;)
      free_slots_.push_back(i);
  }

  ~UmadEngine() override {
    if (smp_agent_ >= 0) port_->unregister_agent(smp_agent_);
    port_->unregister_agent(agent_);
  }

  Status enable_smp(bool enabled) override {
    if (enabled == (smp_agent_ >= 0)) return Ok{};
    if (!enabled) {
      port_->unregister_agent(smp_agent_);
      smp_agent_ = -1;
      return Ok{};
    }
    const int agent = port_->register_agent(kSubnetLidClass);
    if (agent < 0)
      return Err("cannot register an SMP agent (class 0x01): {}", std::strerror(-agent));
    smp_agent_ = agent;
    return Ok{};
  }

  bool smp_enabled() const override { return smp_agent_ >= 0; }

  void submit(const MadRequest& request) override {
    grow(request.node);
    const PendingId id = acquire(request);
    orders_[id] = next_order_++;
    push_back(request.node, id);
    mark_ready(request.node);
    ++queued_;
  }

  size_t poll(std::chrono::milliseconds max_wait, const CompletionFn& on_done) override {
    const auto until = port_->now() + max_wait;
    size_t done = 0;
    while (!idle()) {
      done += fill_window(on_done);
      const auto now = port_->now();
      // With the window full, or every queued request held by its node's limit, nothing can
      // be sent before a reply arrives: wait for one rather than hand back to a caller who can
      // only spin, taking the CPU the fabric (or the simulator) needs to answer.
      const bool blocked = in_flight_ >= options_.window || (queued_ > 0 && ready_.empty());
      if (now >= until && (done > 0 || !blocked)) break;
      Clock::duration wait = now < until ? until - now : std::chrono::milliseconds(100);
      for (const auto& level : timers_) {
        if (!level.empty()) wait = std::min<Clock::duration>(wait, level.front().deadline - now);
      }
      const auto wait_ms =
          std::max<int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(wait).count());
      done += receive(std::chrono::milliseconds(wait_ms), on_done);
      done += expire(on_done);
    }
    return done;
  }

  bool idle() const override { return queued_ == 0 && in_flight_ == 0; }
  size_t queued() const override { return queued_; }
  const MadStats& stats() const override { return stats_; }
  const MadEngineOptions& options() const override { return options_; }

 private:
  void grow(uint32_t node) {
    if (node >= node_queue_.size()) {
      node_queue_.resize(node + 1);
      node_in_flight_.resize(node + 1, 0);
      in_ready_.resize(node + 1, false);
    }
  }

  void push_back(uint32_t node, PendingId id) {
    NodeQueue& q = node_queue_[node];
    pool_[id].next = kNoPending;
    if (q.empty()) {
      q.head = id;
    } else {
      pool_[q.tail].next = id;
    }
    q.tail = id;
  }
  void push_front(uint32_t node, PendingId id) {
    NodeQueue& q = node_queue_[node];
    pool_[id].next = q.head;
    q.head = id;
    if (q.tail == kNoPending) q.tail = id;
  }
  PendingId pop_front(uint32_t node) {
    NodeQueue& q = node_queue_[node];
    const PendingId id = q.head;
    q.head = pool_[id].next;
    if (q.head == kNoPending) q.tail = kNoPending;
    return id;
  }

  void mark_ready(uint32_t node) {
    if (!in_ready_[node] && !node_queue_[node].empty() &&
        node_in_flight_[node] < options_.per_node) {
      in_ready_[node] = true;
      ready_.push(ReadyNode{orders_[node_queue_[node].head], node});
    }
  }

  size_t fill_window(const CompletionFn& on_done) {
    size_t done = 0;
    while (in_flight_ < options_.window && !ready_.empty()) {
      const uint32_t node = ready_.top().node;
      ready_.pop();
      in_ready_[node] = false;
      if (node_queue_[node].empty() || node_in_flight_[node] >= options_.per_node) continue;
      const PendingId id = pop_front(node);
      --queued_;
      done += send(id, on_done);
      // Oldest first across the fabric, not round robin over nodes: under overload a switch's
      // 64 ports would otherwise get one turn while every single-port HCA gets one each.
      mark_ready(node);
    }
    return done;
  }

  static unsigned backoff_level(unsigned attempt) { return std::min(attempt, kMaxBackoffShift); }
  std::chrono::milliseconds attempt_timeout(unsigned attempt) const {
    return options_.timeout * (1u << backoff_level(attempt));
  }

  PendingId acquire(const MadRequest& request) {
    const Pending fresh{pack(request, has_data_tail(request) ? keep_tail(request) : kNoTail)};
    if (free_pending_.empty()) {
      pool_.push_back(fresh);
      orders_.push_back(0);
      return static_cast<PendingId>(pool_.size() - 1);
    }
    const PendingId id = free_pending_.back();
    free_pending_.pop_back();
    pool_[id] = fresh;
    return id;
  }

  // The data of a request past what its packed form holds (a SET's values).
  uint32_t keep_tail(const MadRequest& request) {
    uint32_t tail = 0;
    if (free_tails_.empty()) {
      tail = static_cast<uint32_t>(tails_.size());
      tails_.emplace_back();
    } else {
      tail = free_tails_.back();
      free_tails_.pop_back();
    }
    std::memcpy(tails_[tail].data(), request.data.data() + kPackedData, sizeof(DataTail));
    return tail;
  }

  void release(PendingId id) {
    const uint32_t tail = pool_[id].request.tail;
    if (tail != kNoTail) free_tails_.push_back(tail);
    free_pending_.push_back(id);
  }

  size_t send(PendingId id, const CompletionFn& on_done) {
    Pending& p = pool_[id];
    const uint32_t slot = free_slots_.back();
    // The slot in the low bits finds the flight without a hash table; the sequence above it
    // tells a late answer to an earlier attempt from the current one.
    const uint32_t tid = (next_tid_++ << kSlotBits) | slot;
    encode_packed(port_->send_buffer(), p.request,
                  p.request.tail == kNoTail ? nullptr : &tails_[p.request.tail], tid);
    const bool smp = p.request.mgmt_class == MadClass::kSubnetLid;
    // SMPs go to QP0 (no Q_Key), GMPs to QP1.
    const UmadAddress to{p.request.lid, smp ? 0 : 1, smp ? 0 : kQp1Qkey};
    const unsigned level = backoff_level(p.attempts);
    const auto timeout = attempt_timeout(p.attempts);
    ++p.attempts;
    const int agent = smp ? smp_agent_ : agent_;
    if (agent < 0 || port_->send(agent, to, timeout) != 0) {
      ++stats_.failed_for(MadFailure::kSendError);
      complete(id, MadFailure::kSendError, 0, {}, on_done);
      return 1;
    }
    ++stats_.sent;
    if (p.attempts > 1) ++stats_.retried;
    const auto deadline = port_->now() + timeout;
    ++node_in_flight_[p.request.node];
    free_slots_.pop_back();
    slots_[slot] = Flight{id, deadline, tid, true};
    ++in_flight_;
    timers_[level].push_back(Timer{deadline, tid});
    return 0;
  }

  // An attempt failed: retry it (first in its node's line) or give up.
  size_t retry_or_fail(PendingId id, MadFailure failure, const CompletionFn& on_done) {
    if (pool_[id].attempts <= options_.retries) {
      const uint32_t node = pool_[id].request.node;
      push_front(node, id);
      ++queued_;
      mark_ready(node);
      return 0;
    }
    ++stats_.failed_for(failure);
    complete(id, failure, 0, {}, on_done);
    return 1;
  }

  Flight* find_flight(uint32_t tid) {
    const uint32_t slot = tid & kSlotMask;
    if (slot >= slots_.size() || !slots_[slot].used || slots_[slot].tid != tid) return nullptr;
    return &slots_[slot];
  }

  std::optional<PendingId> land(uint32_t tid) {
    Flight* f = find_flight(tid);
    if (f == nullptr) return std::nullopt;
    return land(*f);
  }

  PendingId land(Flight& f) {
    const PendingId id = f.pending;
    f.used = false;
    free_slots_.push_back(f.tid & kSlotMask);
    --in_flight_;
    const uint32_t node = pool_[id].request.node;
    --node_in_flight_[node];
    mark_ready(node);
    return id;
  }

  size_t receive(std::chrono::milliseconds wait, const CompletionFn& on_done) {
    size_t done = 0;
    UmadReceived got;
    for (auto timeout = wait;; timeout = std::chrono::milliseconds(0)) {
      // Nothing more (a timeout) or an error: timers handle the rest.
      if (!port_->receive(timeout, got)) break;
      const uint8_t* mad = got.mad;
      const int length = got.length;
      // A MAD shorter than a MAD would be decoded partly from the buffer's previous reply; a
      // reply under one of our TIDs to another attribute is not its answer. Both are dropped
      // (the attempt times out and is retried) and counted.
      if (length < static_cast<int>(kMadSize)) {
        ++stats_.malformed_replies;
        continue;
      }
      const DecodedReply reply = decode_reply(mad);
      // A request is never an answer, though it may carry our TID: a port holding the SM role
      // (the simulator's SIM_SET_ISSM) is handed the PMA requests to its own node that ibsim
      // does not answer, ours included. (A request of ours that comes back undelivered has a
      // non-zero status.)
      if (got.status == 0 && (reply.method & kResponseBit) == 0) {
        ++stats_.malformed_replies;
        continue;
      }
      Flight* flight = find_flight(reply.tid);
      if (flight == nullptr) {
        ++stats_.stale_replies;
        continue;
      }
      if (pool_[flight->pending].request.attribute != reply.attribute) {
        ++stats_.malformed_replies;
        continue;
      }
      const PendingId id = land(*flight);
      if (got.status != 0) {  // our own request, returned undelivered
        ++stats_.attempt_unreachable;
        done += retry_or_fail(id, MadFailure::kUnreachable, on_done);
        continue;
      }
      done += answer(id, reply, mad, on_done);
    }
    return done;
  }

  size_t answer(PendingId id, const DecodedReply& reply, const uint8_t* mad,
                const CompletionFn& on_done) {
    ++stats_.answered;
    const MadStatusKind kind = classify_status(reply.status);
    if (kind == MadStatusKind::kBusy) return retry_or_fail(id, MadFailure::kTimeout, on_done);
    if (kind == MadStatusKind::kRedirect) {
      ++stats_.failed_for(MadFailure::kRedirect);
      complete(id, MadFailure::kRedirect, reply.status, {}, on_done);
      return 1;
    }
    if (kind == MadStatusKind::kError) {
      ++stats_.failed_for(MadFailure::kStatus);
      complete(id, MadFailure::kStatus, reply.status, {}, on_done);
      return 1;
    }
    complete(id, MadFailure::kNone, reply.status, {mad + kMadDataOffset, kMadDataSize}, on_done);
    return 1;
  }

  size_t expire(const CompletionFn& on_done) {
    size_t done = 0;
    const auto now = port_->now();
    for (auto& level : timers_) {
      while (!level.empty() && level.front().deadline <= now) {
        const Timer t = level.front();
        level.pop_front();
        const Flight* f = find_flight(t.tid);
        if (f == nullptr || f->deadline != t.deadline) continue;  // answered
        const auto id = land(t.tid);
        ++stats_.attempt_timeouts;
        done += retry_or_fail(*id, MadFailure::kTimeout, on_done);
      }
    }
    return done;
  }

  // Hands the outcome back and frees the request first: the callback may submit new ones.
  void complete(PendingId id, MadFailure failure, uint16_t status, std::span<const uint8_t> data,
                const CompletionFn& on_done) {
    const Pending& p = pool_[id];
    MadCompletion c;
    c.cookie = p.request.cookie;
    c.failure = failure;
    c.mad_status = status;
    c.attempts = p.attempts;
    c.received = port_->now();
    c.data = data;
    release(id);
    on_done(c);
  }

  std::unique_ptr<UmadPort> port_;
  int agent_;
  int smp_agent_ = -1;
  MadEngineOptions options_;
  uint32_t next_tid_;
  std::vector<Pending> pool_;
  std::vector<PendingId> free_pending_;
  std::vector<DataTail> tails_;  // data past the packed part, of the requests that have any
  std::vector<uint32_t> free_tails_;
  std::vector<NodeQueue> node_queue_;
  std::vector<unsigned> node_in_flight_;
  std::vector<bool> in_ready_;
  std::priority_queue<ReadyNode, std::vector<ReadyNode>, std::greater<>> ready_;
  // Submission order per request, the oldest of any node goes out first; apart from the
  // pool's ~250-byte requests so that choosing the next node stays in cache.
  std::vector<uint64_t> orders_;
  uint64_t next_order_ = 0;
  size_t queued_ = 0;
  std::vector<Flight> slots_;  // one per window position
  std::vector<uint32_t> free_slots_;
  size_t in_flight_ = 0;
  std::array<std::deque<Timer>, kBackoffLevels> timers_;  // one FIFO per backoff level
  MadStats stats_;
};

}  // namespace

Result<std::unique_ptr<MadEngine>> make_mad_engine(std::unique_ptr<UmadPort> port,
                                                   const MadEngineOptions& options) {
  if (options.window == 0 || options.per_node == 0) return Err("the MAD window must be positive");
  if (options.window > kSlotMask + 1) return Err("the MAD window is at most {}", kSlotMask + 1);
  const int agent = port->register_agent(kPerformanceClass);
  if (agent < 0) return Err("cannot register a PMA agent (class 0x04): {}", std::strerror(-agent));
  return std::unique_ptr<MadEngine>(new UmadEngine(std::move(port), agent, options));
}

void drain(MadEngine& engine, const CompletionFn& on_done) {
  while (!engine.idle())
    engine.poll(std::chrono::milliseconds(100), on_done);
}

}  // namespace ibpulse::collector
