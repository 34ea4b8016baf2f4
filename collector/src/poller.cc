// The poller's loop: one turn applies reconfigurations, discovers when due, issues what is due
// and waits on the engine; stats are published for other threads every 20 ms.
#include <thread>

#include "ibpulse/base/thread_name.h"
#include "poller_state.h"

namespace ibpulse::collector {

using namespace poller_detail;  // NOLINT(google-build-using-namespace): this module's own
using namespace std::chrono_literals;

namespace poller_detail {

PollerBackend with_defaults(PollerBackend b) {
  if (!b.open_engine) b.open_engine = &MadEngine::open;
  if (!b.discover) b.discover = [](const DiscoveryOptions& o) { return collector::discover(o); };
  if (!b.now) b.now = [] { return Clock::now(); };
  if (!b.sleep) b.sleep = [](Clock::duration d) { std::this_thread::sleep_for(d); };
  return b;
}

}  // namespace poller_detail

Poller::State::State(PollerOptions o, SampleRing& r, PollerEvents e, PollerBackend b)
    : options(std::move(o)),
      ring(r),
      events(std::move(e)),
      backend(with_defaults(std::move(b))),
      scheduler(options.intervals) {
  // A whole 64-port switch in a row at the default limit of 16 (kNodeRunLimits).
  scheduler.set_node_run(kNodeRunLimits * options.mad.per_node);
  name_cache_file();
  follow_missing_limit();
}

void Poller::State::warn(const std::string& text) const {
  if (events.warning) events.warning(text);
}

void Poller::State::publish() {
  std::lock_guard lock(mutex);
  stats.mad = engine->stats();
  // The engine counts every MAD; a tick ask's failure is not a read's (PollerStats).
  for (size_t i = 0; i < tick_failures.size(); ++i)
    stats.mad.failed[i] -= std::min(stats.mad.failed[i], tick_failures[i]);
  stats.tick_asks_answered = tick_answers;
  stats.tick_asks_failed = 0;
  for (const uint64_t n : tick_failures)
    stats.tick_asks_failed += n;
  stats.samples = local_samples;
  stats.clears_sent = local_clears_sent;
  stats.ring_drops = local_drops;
  stats.late_reads = local_late;
  stats.port_info_reads = local_port_info_reads;
  stats.port_info_failures = local_port_info_failures;
  stats.port_changes = local_port_changes;
  stats.partition_reads = partition_reads.answers();
  stats.sm_info_reads = local_sm_info_reads;
  stats.sm_info_failures = local_sm_info_failures;
  stats.partition_read_failures = partition_reads.failures();
}

void Poller::State::apply_pending(Clock::time_point now) {
  if (!pending_work.exchange(false)) return;  // the common case takes no lock
  std::optional<PollerOptions> next;
  bool rediscover = false;
  {
    std::lock_guard lock(mutex);
    next.swap(pending_options);
    rediscover = rediscover_requested;
    rediscover_requested = false;
  }
  if (next) {
    const auto mad = options.mad;      // the engine keeps its window until restart
    const auto shard = options.shard;  // and the shard its nodes (docs/scale-out.md)
    auto split = options.split;        // and the local ports theirs
    const std::string ca = options.discovery.ca;
    const int ca_port = options.discovery.ca_port;
    const size_t split_index = options.split_index;
    const uint8_t subnet = options.subnet;
    options = std::move(*next);
    options.subnet = subnet;
    options.mad = mad;
    options.shard = shard;
    options.split = std::move(split);
    options.split_index = split_index;
    options.discovery.ca = ca;  // the engine stays on its local port until restart
    options.discovery.ca_port = ca_port;
    name_cache_file();
    follow_missing_limit();
    scheduler.set_intervals(options.intervals);
    sampling.reset(options.sampling);
    rediscover = true;
  }
  // A requested rediscovery waits at least 5 s after the last one: a flapping link must not
  // turn the poller into a discovery loop.
  if (rediscover) next_discovery = std::min(next_discovery, std::max(now, last_discovery + 5s));
}

void Poller::State::step() {
  const auto done = [this](const MadCompletion& c) { on_done(c); };
  auto now = backend.now();
  apply_pending(now);
  if (now >= next_discovery) {
    drain(*engine, done);  // samples of the old topology land before it changes
    // libibnetdisc registers the SMP class on its own port: hand it over meanwhile.
    (void)engine->enable_smp(false);
    discover(now);
    enable_smp();
    now = backend.now();
  }
  // Another local port went down or came back: take or give back nodes without discovery.
  if (options.split && options.split->generation() != split_generation) {
    drain(*engine, done);
    adopt(now);
  }
  retry_capabilities(now);
  take_clear_requests();
  issue_due(now);
  ask_ticks();
  read_partitions(now);
  read_sm_info(now);
  auto wake = std::min(next_discovery, now + 100ms);
  if (auto due = scheduler.next_due()) wake = std::min(wake, *due);
  if (!sampling.empty()) wake = std::min(wake, drive_sampling(now));
  auto wait =
      std::chrono::ceil<std::chrono::milliseconds>(wake - now);  // never 0 for a wait: no spinning
  if (backend.turn_limit.count() > 0) wait = std::min(wait, backend.turn_limit);
  if (engine->idle()) {
    if (wait.count() > 0) backend.sleep(wait);
  } else {
    engine->poll(std::max(wait, 0ms), done);
  }
  // Other threads read stats() now and then: publishing every 20 ms is fresh enough.
  if (now - last_publish > 20ms) {
    publish();
    last_publish = now;
  }
}

void Poller::State::finish() {
  drain(*engine, [this](const MadCompletion& c) { on_done(c); });
  publish();
}

Poller::Poller(PollerOptions options, SampleRing& ring, PollerEvents events, ClearRing* clears,
               PollerBackend backend)
    : state_(std::make_unique<State>(std::move(options), ring, std::move(events),
                                     std::move(backend))) {
  state_->clears = clears;
  state_->stats.shard = state_->options.shard;
}

Poller::~Poller() = default;

Status Poller::start() {
  auto& s = *state_;
  auto engine =
      s.backend.open_engine(s.options.discovery.ca, s.options.discovery.ca_port, s.options.mad);
  if (!engine) return Error{engine.error()};
  s.engine = std::move(*engine);
  if (!s.discover(s.backend.now())) return Err("the first discovery failed; see the log");
  s.enable_smp();
  s.sampling.reset(s.options.sampling);
  return Ok{};
}

void Poller::step() {
  state_->step();
}

void Poller::finish() {
  state_->finish();
}

Status Poller::run(const std::atomic<bool>& stop) {
  name_this_thread("ibp-poller");
  if (auto started = start(); !started) return started;
  while (!stop.load())
    state_->step();
  finish();
  return Ok{};
}

PollerStats Poller::stats() const {
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

void Poller::reconfigure(const PollerOptions& options) {
  std::lock_guard lock(state_->mutex);
  state_->pending_options = options;
  state_->pending_work.store(true);
}

}  // namespace ibpulse::collector
