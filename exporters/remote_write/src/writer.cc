#include "ibpulse/exporters/remote_write/writer.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "ibpulse/base/heap_trim.h"
#include "ibpulse/base/log_text.h"
#include "ibpulse/base/thread_name.h"
#include "ibpulse/base/thread_priority.h"
#include "ibpulse/exporters/remote_write/change_filter.h"
#include "ibpulse/exporters/remote_write/encoder.h"
#include "ibpulse/exporters/remote_write/shard_sender.h"
#include "ibpulse/exporters/remote_write/snapshot_samples.h"

namespace ibpulse::exporters::remote_write {

using namespace std::chrono_literals;

namespace {

// Queues holding less than this at their peak are not worth a trim (it walks every arena).
constexpr size_t kTrimPeakBytes = size_t{32} << 20;

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("ibpulse");
}

}  // namespace

std::string with_instance(std::string_view text, std::string_view instance) {
  std::string label = "instance=\"";
  prometheus::append_escaped_label_value(instance, label);
  label += '"';
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    const size_t brace = line.find('{');
    const size_t space = line.find(' ');
    if (line.empty() || line.front() == '#' || space == std::string_view::npos) {
      out.append(line);
    } else if (brace != std::string_view::npos && brace < space) {
      out.append(line.substr(0, brace + 1)).append(label).push_back(',');
      out.append(line.substr(brace + 1));
    } else {
      out.append(line.substr(0, space)).append("{").append(label).append("}");
      out.append(line.substr(space));
    }
    out.push_back('\n');
  }
  return out;
}

struct RemoteWriter::Reader {
  SnapshotSamples samples;
  std::string scratch;
  // A receiver that is down or slow lets the queues fill to their bounds (256 MB by default,
  // some 20 million samples as compressed requests); once they drain, what they held is given
  // back to the system (when they are down to a quarter of that peak).
  HeapTrim trim{kTrimPeakBytes};
};

// One receiver: its own change filter (what it was sent), queues, senders and counts.
struct RemoteWriter::Target {
  Endpoint endpoint;
  std::string url;  // redacted
  ChangeFilter filter;
  std::vector<std::unique_ptr<ShardQueue>> queues;
  SampleCounters counters;
  std::vector<std::unique_ptr<ShardSender>> senders;
  uint64_t drops_logged = 0;  // counters.dropped when last logged
  bool malformed_logged = false;
  std::chrono::steady_clock::time_point drop_logged_at{};

  Target(Endpoint e, const WriterOptions& o)
      : endpoint(std::move(e)),
        url(redacted_url(endpoint.url)),
        filter(o.changed_only, static_cast<uint32_t>(o.resend.count() / 1000)) {
    const unsigned n = std::max(1u, endpoint.concurrency);
    for (unsigned i = 0; i < n; ++i) {
      queues.push_back(std::make_unique<ShardQueue>(std::max<size_t>(1, endpoint.queue_samples / n),
                                                    endpoint.queue_bytes / n, endpoint.batch_size,
                                                    endpoint.external_labels));
    }
    for (unsigned i = 0; i < n; ++i)
      senders.push_back(std::make_unique<ShardSender>(endpoint, i, *queues[i], counters));
  }

  // Drops are logged at most every 10 s, with how many since the last line.
  void log_drops() {
    const uint64_t dropped = counters.dropped.load();
    const auto now = std::chrono::steady_clock::now();
    if (dropped == drops_logged || now - drop_logged_at < 10s) return;
    size_t queued = 0;
    for (const auto& q : queues)
      queued += q->samples();
    spdlog::warn(
        "event=remote_write_dropped url=\"{}\" samples={} queue_samples={} "
        "note=\"the queue is full (queue-samples, queue-bytes): the receiver is down or slow\"",
        log_text(url), dropped - drops_logged, queued);
    drops_logged = dropped;
    drop_logged_at = now;
  }

  // The shard of a series: the high half of its hash (the change filter indexes by the low).
  ShardQueue& queue_of(uint64_t key) { return *queues[(key >> 32) % queues.size()]; }

  // False when the sample could not be queued (counted).
  bool push(std::string_view series, uint64_t key, double value, int64_t ts, int64_t snap_ms) {
    switch (queue_of(key).push(series, value, ts, snap_ms)) {
      case ShardQueue::Push::kQueued:
        return true;
      case ShardQueue::Push::kFull:
        counters.dropped.fetch_add(1);
        return false;
      case ShardQueue::Push::kMalformed:  // our own text always parses: a bug, logged once
        counters.failed.fetch_add(1);
        if (!malformed_logged) {
          spdlog::error("event=remote_write_encode_failed url=\"{}\" metric=\"{}\"", log_text(url),
                        log_text(series.substr(0, std::min(series.find('{'), size_t{200}))));
          malformed_logged = true;
        }
        return false;
    }
    return false;
  }
};

RemoteWriter::RemoteWriter(WriterOptions options, prometheus::MetricGroups groups)
    : options_(std::move(options)),
      reader_(std::make_unique<Reader>(
          Reader{SnapshotSamples(groups, MetricSelection(options_.metrics)), {}})) {
  for (const auto& e : options_.endpoints)
    targets_.push_back(std::make_unique<Target>(e, options_));
}

RemoteWriter::~RemoteWriter() {
  stop();
}

std::unique_ptr<RemoteWriter> RemoteWriter::start(const WriterOptions& options,
                                                  prometheus::MetricGroups groups,
                                                  const converters::SnapshotStore& store,
                                                  DaemonText daemon_text,
                                                  const alerts::HealthStore* healths) {
  if (options.endpoints.empty()) return nullptr;
  for (const auto& e : options.endpoints) {
    spdlog::info(
        "event=remote_write url=\"{}\" concurrency={} batch_size={} queue_samples={} "
        "queue_bytes={} changed_only={} resend_seconds={}",
        log_text(redacted_url(e.url)), e.concurrency, e.batch_size, e.queue_samples, e.queue_bytes,
        options.changed_only, options.resend.count() / 1000);
  }
  auto writer = std::make_unique<RemoteWriter>(options, groups);
  writer->daemon_text_ = std::move(daemon_text);
  writer->healths_ = healths;
  writer->instance_ = options.instance.empty() ? host_name() : options.instance;
  writer->follow(store);
  return writer;
}

void RemoteWriter::follow(const converters::SnapshotStore& store) {
  thread_ = std::thread([this, &store] {
    name_this_thread("ibp-rw-read");
    // Rendering and filtering a large fabric's snapshot takes a core for a second or more:
    // it yields to polling and converting, and skips snapshots it had no time for.
    if (!lower_this_thread_priority()) spdlog::debug("event=thread_priority_unchanged");
    std::shared_ptr<const converters::FabricSnapshot> last;
    while (!stop_.load()) {
      // Woken by the publish; the timeout only bounds how late a stop is seen.
      auto snap = store.wait_for_newer(last, 50ms);
      if (!snap) continue;
      last = snap;
      bool stepped = false;
      const auto offset = clock_offset_.update(clock_offset(), &stepped);
      if (stepped) {
        spdlog::warn(
            "event=remote_write_clock_step offset_ms={} note=\"the system clock was set: "
            "samples are stamped from the new time on\"",
            offset.count());
      }
      write(std::move(snap), offset);
    }
  });
}

void RemoteWriter::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  for (auto& t : targets_) {
    for (auto& s : t->senders)
      s->stop();
  }
  for (auto& t : targets_)
    t->senders.clear();  // joins
}

void RemoteWriter::write(std::shared_ptr<const converters::FabricSnapshot> snapshot,
                         std::chrono::milliseconds offset) {
  // The queues' low point: what the senders left of the snapshots before.
  const size_t peak = reader_->trim.peak();
  const size_t left = queued_bytes();
  if (reader_->trim.note(left))
    spdlog::debug("event=remote_write_heap_trim queue_peak_bytes={} queue_bytes={}", peak, left);
  // Numbered snapshots (the daemon's) tell how many were published while the last was written.
  if (previous_ && previous_->sequence > 0 && snapshot->sequence > previous_->sequence + 1)
    snapshots_skipped_.fetch_add(snapshot->sequence - previous_->sequence - 1);
  snapshots_written_.fetch_add(1);
  const int64_t publish_ms = unix_ms(snapshot->published, offset);
  const auto now_s = static_cast<uint32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(snapshot->published - started_).count());
  for (auto& t : targets_)
    t->filter.begin(now_s);
  const auto offer = [&](const SeriesLine& line, uint64_t key, int64_t ts) {
    for (auto& t : targets_) {
      if (t->filter.offer(line.name, key, line.value) &&
          !t->push(line.series, key, line.value, ts, publish_ms)) {
        t->filter.unsent();  // the next snapshot tries again
      }
    }
  };
  reader_->samples.read(*snapshot, offset, reader_->scratch, offer);
  // The health of this snapshot or, while the alerts thread computes it, of the one before,
  // stamped with this snapshot's time.
  auto health = healths_ != nullptr ? healths_->load() : nullptr;
  if (health) reader_->samples.read_health(*health, publish_ms, reader_->scratch, offer);
  if (daemon_text_) {
    reader_->scratch.clear();
    daemon_text_(reader_->scratch);
    reader_->samples.read_text(with_instance(reader_->scratch, instance_), publish_ms, offer);
  }
  std::vector<GoneSeries> gone;
  bool any_gone = false;
  for (auto& t : targets_) {
    gone.push_back(t->filter.finish());
    any_gone = any_gone || !gone.back().empty();
  }
  if (any_gone) stale_markers(gone, publish_ms);
  for (auto& t : targets_) {
    for (auto& q : t->queues)
      q->note_snapshot(publish_ms);
    t->log_drops();
  }
  previous_ = std::move(snapshot);
  previous_health_ = std::move(health);
  reader_->trim.observe(queued_bytes());  // the queues' high point: just filled
}

size_t RemoteWriter::queued_bytes() const {
  size_t bytes = 0;
  for (const auto& t : targets_) {
    for (const auto& q : t->queues)
      bytes += q->bytes();
  }
  return bytes;
}

// The series that left are found in the previous snapshot's text (the filters keep their
// positions only) and sent once as Prometheus stale markers, at this snapshot's time. Series
// of the daemon's own text are not rendered again: they go stale after the receiver's lookback.
void RemoteWriter::stale_markers(const std::vector<GoneSeries>& gone, int64_t publish_ms) {
  if (!previous_) return;
  std::vector<GoneSeries::Walk> walks;
  walks.reserve(gone.size());
  for (const auto& g : gone)
    walks.emplace_back(g);
  const auto walk = [&](const SeriesLine& line, uint64_t key, int64_t) {
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (!walks[i].left(line.name)) continue;
      Target& t = *targets_[i];
      t.push(line.series, key, stale_nan(), publish_ms, publish_ms);
    }
  };
  reader_->samples.read(*previous_, 0ms, reader_->scratch, walk);
  if (previous_health_) {
    reader_->samples.read_health(*previous_health_, publish_ms, reader_->scratch, walk);
  }
}

std::vector<prometheus::RemoteWriteStatus> RemoteWriter::status() const {
  std::vector<prometheus::RemoteWriteStatus> out;
  const int64_t now_ms = unix_ms(converters::Clock::now(), clock_offset_.current());
  for (const auto& t : targets_) {
    prometheus::RemoteWriteStatus s;
    s.url = t->url;
    s.sent = t->counters.sent.load();
    s.failed = t->counters.failed.load();
    s.dropped = t->counters.dropped.load();
    s.retries = t->counters.retries.load();
    s.sent_bytes = t->counters.sent_bytes.load();
    int64_t origin = 0;
    for (const auto& q : t->queues) {
      s.queue_samples += q->samples();
      const int64_t o = q->lag_origin_ms();
      if (o > 0) origin = origin == 0 ? o : std::min(origin, o);
    }
    s.snapshots_written = snapshots_written_.load();
    s.snapshots_skipped = snapshots_skipped_.load();
    s.lag_seconds =
        origin == 0 ? 0 : std::max<double>(0, static_cast<double>(now_ms - origin) / 1e3);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ibpulse::exporters::remote_write
