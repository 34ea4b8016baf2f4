#pragma once
// The samples waiting for one shard (one request in flight) of one receiver, held as request
// bodies: each sample is written into the open request as it is pushed (protobuf, ~100 bytes),
// and a request is compressed (~12 bytes a sample) once it holds `batch_size` samples or its
// snapshot is complete. At 70,000 ports a snapshot queues hundreds of thousands of samples at
// once; as strings (the series' text and 56 bytes each) they took tens of MB.
//
// Bounded in samples and in bytes (the open request's protobuf plus the compressed bodies
// waiting or in flight). A sample that does not fit is refused (the caller counts it dropped and
// the change filter sends the series again later): what is queued stays, in order, through an
// outage as long as it fits.
//
// Lag: the Unix time (ms) of the snapshot of the oldest sample not yet acknowledged, or, when
// none is pending, of the last snapshot whose samples were all acknowledged.
//
// Thread safety: one producer (push, note_snapshot) and one consumer (take, acknowledge);
// samples(), bytes(), lag_origin_ms() and wake() from any thread.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "ibpulse/exporters/remote_write/encoder.h"

namespace ibpulse::exporters::remote_write {

class ShardQueue {
 public:
  ShardQueue(size_t max_samples, size_t max_bytes, size_t batch_size = 2000,
             Labels external_labels = {});

  enum class Push { kQueued, kFull, kMalformed };
  // Pushes one sample of the snapshot published at `snapshot_ms`.
  Push push(std::string_view series, double value, int64_t timestamp_ms, int64_t snapshot_ms);
  bool push(const Sample& s, int64_t snapshot_ms) {
    return push(s.series, s.value, s.timestamp_ms, snapshot_ms) == Push::kQueued;
  }
  // The snapshot's samples are all pushed: its open request is compressed and can be taken.
  // With nothing pending, the snapshot counts as acknowledged.
  void note_snapshot(int64_t snapshot_ms);

  struct Request {
    std::string body;  // snappy-compressed WriteRequest
    size_t samples = 0;
  };
  // The oldest complete request, waiting at most `wait` for one; it stays pending (and counts
  // in samples()) until acknowledge().
  std::optional<Request> take(std::chrono::milliseconds wait);
  void acknowledge();  // the request take() returned is done with (sent, or rejected)
  void wake();         // take() returns now (stopping)

  size_t samples() const;  // pushed and not acknowledged
  size_t bytes() const;
  int64_t lag_origin_ms() const;  // see above; 0 before any snapshot

 private:
  struct Waiting {
    Request request;
    int64_t snapshot_ms = 0;
  };
  void close_open();  // producer: compresses the open request into ready_

  const size_t max_samples_, max_bytes_, batch_size_;
  RequestBuilder open_;  // producer only
  mutable std::mutex mutex_;
  std::condition_variable ready_cv_;
  // Under mutex_:
  std::deque<Waiting> ready_;
  size_t open_samples_ = 0, open_bytes_ = 0;
  int64_t open_ms_ = 0;
  size_t ready_samples_ = 0, ready_bytes_ = 0;
  size_t taken_ = 0, taken_bytes_ = 0;
  int64_t taken_ms_ = 0;
  int64_t acknowledged_ms_ = 0;
  bool woken_ = false;
};

}  // namespace ibpulse::exporters::remote_write
