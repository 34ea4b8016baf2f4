#pragma once
// One shard of one receiver: a thread that takes requests from its ShardQueue (encoded there) and
// POSTs them, one request at a time so the shard's series stay in order. A batch that may be
// retried (http_client.h) is sent again with backoff until it goes through or the sender stops,
// while new samples wait in the queue (or are dropped when it is full).
//
// Thread safety: the counters are atomics any thread may read; stop() from any thread.

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "ibpulse/exporters/remote_write/options.h"
#include "ibpulse/exporters/remote_write/shard_queue.h"

namespace ibpulse::exporters::remote_write {

class HttpClient;

// Per receiver, summed over its shards (ibpulse_remote_write_samples_total's results).
struct SampleCounters {
  std::atomic<uint64_t> sent{0};     // acknowledged with 2xx
  std::atomic<uint64_t> failed{0};   // rejected by the receiver (4xx other than 429): not retried
  std::atomic<uint64_t> dropped{0};  // not queued: the queue was full (or a stale marker lost)
  std::atomic<uint64_t> retries{0};  // requests sent again after a 5xx, 429 or network error
  std::atomic<uint64_t> sent_bytes{0};  // request bodies (compressed) acknowledged with 2xx
};

class ShardSender {
 public:
  // Starts the thread; `queue` and `counters` outlive the sender.
  ShardSender(const Endpoint& endpoint, unsigned shard, ShardQueue& queue,
              SampleCounters& counters);
  ~ShardSender();  // stop() and join
  ShardSender(const ShardSender&) = delete;
  ShardSender& operator=(const ShardSender&) = delete;

  void stop();

 private:
  struct Log;
  void run();
  // Sends one batch until it is acknowledged or rejected (true) or the sender stops (false).
  bool deliver(HttpClient& client, Log& log, const std::string& body, size_t samples);

  const Endpoint& endpoint_;
  const unsigned shard_;
  ShardQueue& queue_;
  SampleCounters& counters_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ibpulse::exporters::remote_write
