#include "ibpulse/exporters/remote_write/shard_sender.h"

#include <spdlog/spdlog.h>

#include "ibpulse/base/log_text.h"
#include "ibpulse/base/thread_name.h"
#include "ibpulse/base/thread_priority.h"
#include "ibpulse/exporters/remote_write/http_client.h"

namespace ibpulse::exporters::remote_write {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// At most one line per shard every 10 s while a receiver keeps failing: enough to act on
// without flooding the log at 1 request per batch.
class LogLimiter {
 public:
  bool allow() {
    const auto now = Clock::now();
    if (now - last_ < 10s) {
      ++suppressed_;
      return false;
    }
    last_ = now;
    return true;
  }
  uint64_t take_suppressed() { return std::exchange(suppressed_, 0); }

 private:
  Clock::time_point last_{};
  uint64_t suppressed_ = 0;
};

}  // namespace

struct ShardSender::Log : LogLimiter {};

ShardSender::ShardSender(const Endpoint& endpoint, unsigned shard, ShardQueue& queue,
                         SampleCounters& counters)
    : endpoint_(endpoint), shard_(shard), queue_(queue), counters_(counters) {
  thread_ = std::thread([this] {
    name_this_thread(fmt::format("ibp-rw-send{}", shard_));
    // Encoding and compressing yield to polling too (writer.cc).
    if (!lower_this_thread_priority()) spdlog::debug("event=thread_priority_unchanged");
    run();
  });
}

ShardSender::~ShardSender() {
  stop();
  if (thread_.joinable()) thread_.join();
}

void ShardSender::stop() {
  stop_.store(true);
  queue_.wake();
}

void ShardSender::run() {
  HttpClient client(endpoint_);  // one connection per shard, kept alive
  Log log;
  while (!stop_.load()) {
    auto request = queue_.take(200ms);
    if (!request) continue;
    if (!deliver(client, log, request->body, request->samples)) {
      return;  // stopping: the request is neither sent nor counted
    }
    queue_.acknowledge();
  }
}

bool ShardSender::deliver(HttpClient& client, Log& log, const std::string& body, size_t samples) {
  Backoff backoff(endpoint_.min_backoff, endpoint_.max_backoff);
  const std::string url = redacted_url(endpoint_.url);
  while (!stop_.load()) {
    const HttpResult r = client.post(body);
    switch (classify(r)) {
      case Outcome::kSent:
        counters_.sent.fetch_add(samples);
        counters_.sent_bytes.fetch_add(body.size());
        return true;
      case Outcome::kReject:
        counters_.failed.fetch_add(samples);
        if (!log.allow()) return true;
        spdlog::warn(
            "event=remote_write_rejected url=\"{}\" shard={} status={} samples={} body=\"{}\" "
            "suppressed={} note=\"not retried: the receiver will not take these samples\"",
            log_text(url), shard_, r.status, samples, log_text(r.body.substr(0, r.body.find('\n'))),
            log.take_suppressed());
        return true;
      case Outcome::kRetry:
        break;
    }
    counters_.retries.fetch_add(1);
    const auto wait = backoff.next();
    if (log.allow()) {
      spdlog::warn(
          "event=remote_write_retry url=\"{}\" shard={} status={} error=\"{}\" samples={} "
          "backoff_ms={} suppressed={}",
          log_text(url), shard_, r.status, log_text(r.error), samples, wait.count(),
          log.take_suppressed());
    }
    const auto until = Clock::now() + wait;
    while (!stop_.load() && Clock::now() < until)
      std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), 50ms));
  }
  return false;
}

}  // namespace ibpulse::exporters::remote_write
