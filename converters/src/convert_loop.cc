#include "ibpulse/converters/convert_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <set>
#include <thread>
#include <vector>

#include "ibpulse/base/heap_trim.h"
#include "ibpulse/base/thread_name.h"

namespace ibpulse::converters {
namespace {

using collector::guid_string;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr unsigned kForeignClearLogs = 20;  // then only the count, in the stats lines
// A reboot or an operator's perfquery -R clears a port's counters once; this many clears within
// one window, some attribute of a port cleared more than once among them, means something
// clears counters routinely (opensm's PerfMgr, UFM, a cron job).
constexpr uint64_t kFrequentForeignClears = 3;

std::string field_names(schema::Attribute attribute, schema::Layout layout, uint64_t mask) {
  std::string out;
  const auto fields = schema::fields_of(attribute, layout);
  for (size_t i = 0; i < fields.size(); ++i) {
    if ((mask >> i & 1) == 0) continue;
    if (!out.empty()) out += ',';
    out += fields[i].name;
  }
  return out;
}

std::string_view attribute_name(schema::Attribute a) {
  const auto info = schema::find_attribute(a);
  return info ? info->name : "?";
}

// ibIfVLTrafficTable rows: only the VLs a sample covered.
void log_vl_totals(collector::PortKey key, const PortVlTraffic& t) {
  for (size_t vl = 0; vl < kVirtualLanes; ++vl) {
    if (!t.has_vl(vl)) continue;
    spdlog::trace(
        "event=vl_total node_guid={} port={} vl={} out_octets={} out_packets={} in_octets={} "
        "in_packets={} packets_sampled={} samples={} coverage={:.4f}",
        guid_string(key.node_guid), key.port, vl, t.out_octets(vl), t.vl[vl].xmit_packets,
        t.in_octets(vl), t.vl[vl].rcv_packets, t.packets_sampled(vl), t.samples, t.coverage());
  }
}

ConverterOptions holding_clears(ConverterOptions options) {
  options.hold_clears = true;  // released by pass_on_clears()
  return options;
}

}  // namespace

ConvertLoop::ConvertLoop(const ConvertLoopOptions& options,
                         std::vector<collector::SampleRing*> rings, collector::ClearRings& clears,
                         SnapshotStore& store, SampleLogger trace_sample)
    : rings_(std::move(rings)),
      trace_sample_(trace_sample),
      store_(store),
      publish_interval_(options.publish_interval),
      foreign_clear_window_(options.foreign_clear_window),
      converter_(holding_clears(options.converter), &clears),
      state_(options.state_dir, options.state_save_interval) {}

void ConvertLoop::set_topology(const collector::Topology& topology) {
  std::lock_guard lock(mutex_);
  pending_ = std::make_shared<collector::Topology>(topology);
}

void ConvertLoop::update_port(const collector::Port& port) {
  std::lock_guard lock(mutex_);
  if (!pending_) {
    if (!topology_) return;
    pending_ = std::make_shared<collector::Topology>(*topology_);
  }
  const auto it =
      std::lower_bound(pending_->ports.begin(), pending_->ports.end(), port.key,
                       [](const collector::Port& p, collector::PortKey k) { return p.key < k; });
  if (it != pending_->ports.end() && it->key == port.key) *it = port;
}

void ConvertLoop::update_partitions(std::vector<collector::PortPartitions> tables) {
  std::lock_guard lock(mutex_);
  pending_partitions_.push_back(std::move(tables));
}

void ConvertLoop::update_subnet_managers(uint8_t subnet,
                                         std::vector<collector::SubnetManagerInfo> managers) {
  // A handful of SMs per subnet: merging them here, under the lock, costs nothing.
  std::lock_guard lock(mutex_);
  if (managers_by_subnet_.size() <= subnet) {
    managers_by_subnet_.resize(subnet + 1u);
    manager_rounds_.resize(subnet + 1u);
  }
  managers_by_subnet_[subnet] = std::move(managers);
  ++manager_rounds_[subnet];
  auto merged = std::make_shared<collector::SubnetManagers>();
  for (const auto& round : managers_by_subnet_)
    merged->managers.insert(merged->managers.end(), round.begin(), round.end());
  merged->rounds = manager_rounds_;
  pending_managers_ = std::move(merged);
}

void ConvertLoop::merge_partitions(
    const std::vector<std::vector<collector::PortPartitions>>& batches) {
  if (batches.empty()) return;
  // Merged here, on the converter's thread: a copy of every table so far per batch, which
  // the poller's I/O thread that hands them over must not pay for.
  static const collector::PartitionTables kNone;
  for (const auto& batch : batches) {
    partitions_ = std::make_shared<const collector::PartitionTables>(
        (partitions_ ? *partitions_ : kNone).merged(batch));
  }
  converter_.set_partitions(partitions_);
}

void ConvertLoop::take_topology() {
  std::vector<std::vector<collector::PortPartitions>> batches;
  std::shared_ptr<const collector::SubnetManagers> managers;
  bool new_topology = false;
  {
    std::lock_guard lock(mutex_);  // one lock a loop turn for every hand-over
    batches.swap(pending_partitions_);
    managers.swap(pending_managers_);
    if (pending_) {
      topology_ = std::move(pending_);
      pending_.reset();
      new_topology = true;
    }
  }
  merge_partitions(batches);  // outside the lock, like what follows
  if (managers) converter_.set_subnet_managers(std::move(managers));
  if (!new_topology) return;
  // Outside the lock: loading a large file must not hold up the poller's hand-over.
  state_.load(*topology_, converter_);  // the first time only: before any sample is applied
  converter_.set_topology(topology_);
}

ConverterStats ConvertLoop::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void ConvertLoop::report(const collector::RawSample& s, const ApplyEvents& events) {
  const auto port = [&] {
    return fmt::format("node_guid={} port={} attribute={}", guid_string(s.port.node_guid),
                       s.port.port, attribute_name(s.attribute));
  };
  // A clear moved the baseline below the saved reading: until the next save, a restart would
  // compare the hardware with that older reading and lose (or, above it, miscount) what was
  // read between the save and the clear. Ours erased counts; another tool's too.
  if (events.own_clear || events.foreign_clear) state_.save_soon(s.received);
  if (events.own_clear) {
    spdlog::info("event=counters_cleared {} fields={} note=\"our clear (counters.clear-policy)\"",
                 port(), field_names(s.attribute, s.layout, s.cleared));
  }
  if (events.clear_failed) {
    spdlog::warn("event=clear_failed {} fields={} failure={} note=\"old baseline kept\"", port(),
                 field_names(s.attribute, s.layout, s.cleared), collector::to_string(s.failure));
  }
  if (events.clear_requested) {
    spdlog::debug("event=clear_requested {}", port());
  }
  if (events.foreign_clear) note_foreign_clear(s);
  if (events.foreign_clear && foreign_logged_ < kForeignClearLogs) {
    ++foreign_logged_;
    spdlog::warn(
        "event=foreign_clear {} note=\"a reading below the previous one: another tool or a "
        "reboot cleared counters{}\"",
        port(), foreign_logged_ == kForeignClearLogs ? "; further ones are only counted" : "");
  }
}

void ConvertLoop::note_foreign_clear(const collector::RawSample& s) {
  if (foreign_window_.clears == 0) foreign_window_.start = s.received;
  ++foreign_window_.clears;
  ++foreign_window_.per_counter_set[{s.port, s.attribute}];
}

void ConvertLoop::report_foreign_clears(Clock::time_point now, bool final) {
  auto& w = foreign_window_;
  if (w.clears == 0 || (!final && now - w.start < foreign_clear_window_)) return;
  std::set<collector::PortKey> ports;
  size_t repeated = 0;  // counter sets of a port cleared more than once
  for (const auto& [where, clears] : w.per_counter_set) {
    ports.insert(where.first);
    repeated += clears >= 2;
  }
  if (w.clears >= kFrequentForeignClears && repeated > 0) {
    spdlog::warn(
        "event=frequent_foreign_clears clears={} ports={} cleared_repeatedly={} "
        "window_seconds={} note=\"another manager seems to clear counters routinely (opensm's "
        "PerfMgr, UFM, perfquery -R in a loop): ibpulse's totals stay exact, but that "
        "manager's users see cleared counters\"",
        w.clears, ports.size(), repeated,
        std::chrono::duration_cast<std::chrono::seconds>(now - w.start).count());
  }
  w = {};
}

void ConvertLoop::run(const std::atomic<bool>& stop) {
  name_this_thread("ibp-convert");
  auto next_publish = Clock::now();
  // Popped a batch at a time: the converter fetches the state of the samples behind the one it
  // converts (Converter::apply_batch).
  constexpr size_t kBatch = 64;
  std::vector<collector::RawSample> batch(kBatch);
  std::vector<ApplyEvents> events(kBatch);
  // One ring per poller (SPSC: one producer each), drained in turn. With one local port this
  // is the single ring as before.
  const auto drain_one = [&](collector::SampleRing& ring) {
    size_t total = 0;
    while (const size_t n = ring.pop(batch.data(), kBatch)) {
      // A sample comes after the discovery that found its port: the state file is loaded
      // before the first sample is applied, even when discovery finished mid-turn.
      if (!topology_) take_topology();
      if (trace_sample_ && spdlog::should_log(spdlog::level::trace)) {
        for (size_t i = 0; i < n; ++i)
          trace_sample_(batch[i]);
      }
      converter_.apply_batch({batch.data(), n}, events);
      for (size_t i = 0; i < n; ++i)
        report(batch[i], events[i]);
      total += n;
    }
    return total;
  };
  const auto drain = [&] {
    size_t total = 0;
    for (collector::SampleRing* ring : rings_)
      total += drain_one(*ring);
    return total;
  };
  while (!stop.load()) {
    take_topology();
    const size_t n = drain();
    const auto now = Clock::now();
    if (now >= next_publish) {
      converter_.expire(now);
      store_.publish(converter_.snapshot(now, ++published_));
      next_publish = now + publish_interval_;
      trim_after_snapshots(now);
      std::lock_guard lock(mutex_);
      stats_ = converter_.stats();
    }
    pass_on_clears();
    if (topology_) state_.maybe_save(converter_, topology_->subnet_prefix, now);
    report_foreign_clears(now);
    if (n == 0) std::this_thread::sleep_for(5ms);
  }
  drain();  // the poller has stopped: what it read still counts
  take_topology();
  store_.publish(converter_.snapshot(Clock::now(), ++published_));
  if (topology_) state_.save_now(converter_, topology_->subnet_prefix);
  report_foreign_clears(Clock::now(), true);
  std::lock_guard lock(mutex_);
  stats_ = converter_.stats();
}

void ConvertLoop::pass_on_clears() {
  auto asked = converter_.take_held_clears();
  held_clears_.insert(held_clears_.end(), asked.begin(), asked.end());
  if (!state_.saving() || !topology_) {  // no state file: nothing to wait for
    held_clears_.insert(held_clears_.end(), awaiting_save_.begin(), awaiting_save_.end());
    awaiting_save_.clear();
    converter_.release_clears(held_clears_);
    held_clears_.clear();
    return;
  }
  if (!awaiting_save_.empty() && state_.finished_through() >= saved_for_) {
    converter_.release_clears(awaiting_save_);
    awaiting_save_.clear();
  }
  // One save covers every clear asked before it started; the ones asked while it is written
  // wait for the next.
  if (awaiting_save_.empty() && !held_clears_.empty()) {
    if (const auto number = state_.start_save(converter_, topology_->subnet_prefix)) {
      saved_for_ = *number;
      awaiting_save_.swap(held_clears_);
    }
  }
}

// Every snapshot replaces the per-VL blocks of the ports whose counters moved (the old ones
// live on in the snapshots still read), and every reader frees what it built for the last
// one: glibc keeps the freed chunks in each thread's arena, scattered among live ones, and
// returns little by itself. On the 70,000-port fabric that was 64 MB of 294 MB of heap
// (malloc_stats); malloc_trim gave back 22-37 MB of it. Its cost (a walk over the arenas'
// free lists, milliseconds) is nothing at this period, and the ring covers it.
void ConvertLoop::trim_after_snapshots(Clock::time_point now) {
  constexpr auto kTrimPeriod = std::chrono::seconds(30);
  if (now - last_trim_ < kTrimPeriod) return;
  last_trim_ = now;
  trim_heap();
}

void ConvertLoop::log_totals() const {
  if (!spdlog::should_log(spdlog::level::trace)) return;
  const auto snap = store_.load();
  if (!snap) return;
  const auto table = schema::counter_table();
  for (const auto& p : snap->ports) {
    for (size_t c = 0; c < schema::kCoreCounterCount; ++c) {
      if ((p.present >> c & 1) == 0) continue;
      spdlog::trace("event=port_total node_guid={} port={} counter={} total={}{}",
                    guid_string(p.key.node_guid), p.key.port, table[c].name, p.totals[c],
                    (p.saturated >> c & 1) ? " saturated=true" : "");
    }
    spdlog::trace(
        "event=port_status node_guid={} port={} if_index={} oper_status={} in_topology={} "
        "mtu={} phys_lid={} last_change_ago_seconds={}",
        guid_string(p.key.node_guid), p.key.port, p.if_index, to_string(p.oper_status),
        p.in_topology, p.mtu, p.phys_lid,
        p.last_change == Clock::time_point{}
            ? -1
            : std::chrono::duration_cast<std::chrono::seconds>(snap->published - p.last_change)
                  .count());
    if (p.vl_traffic) log_vl_totals(p.key, *p.vl_traffic);
  }
}

}  // namespace ibpulse::converters
