#pragma once
// The samples waiting for one shard (one request in flight) of one receiver: bounded in samples
// and in bytes. A sample that does not fit is refused (the caller counts it dropped and the
// change filter sends the series again later): what is queued stays, in order, through an
// outage as long as it fits.
//
// Lag: the Unix time (ms) of the snapshot of the oldest sample not yet acknowledged, or, when
// none is pending, of the last snapshot whose samples were all acknowledged.
//
// Thread safety: thread-safe; one producer (the writer thread) and one consumer (the shard's
// sender) in practice.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "ibpulse/exporters/remote_write/encoder.h"

namespace ibpulse::exporters::remote_write {

class ShardQueue {
 public:
  // The sender is woken when `wake_at` samples are queued or a snapshot is complete, not per
  // sample: a futex wake per sample cost more than the rest of the writer's work together.
  ShardQueue(size_t max_samples, size_t max_bytes, size_t wake_at = 1);

  // What one queued sample costs against max_bytes.
  static size_t cost(const Sample& s) { return sizeof(Entry) + s.series.size(); }

  // False (nothing queued) when the sample does not fit.
  bool push(Sample sample, int64_t snapshot_ms);
  // The snapshot's samples are all queued: the sender may take a short batch. With nothing
  // pending, the snapshot counts as acknowledged.
  void note_snapshot(int64_t snapshot_ms);

  // Up to `max` samples, waiting at most `wait` for `wake_at` of them or a complete snapshot;
  // they stay pending (and count in samples()) until acknowledge().
  std::vector<Sample> take(size_t max, std::chrono::milliseconds wait);
  void acknowledge();  // the batch take() returned is done with (sent, or rejected)
  void wake();         // take() returns now (stopping)

  size_t samples() const;  // queued plus taken and not acknowledged
  size_t bytes() const;
  int64_t lag_origin_ms() const;  // see above; 0 before any snapshot

 private:
  struct Entry {
    Sample sample;
    int64_t snapshot_ms;
  };
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Entry> queue_;
  const size_t max_samples_, max_bytes_, wake_at_;
  bool complete_ = false;  // a snapshot ended since the sender last emptied the queue
  size_t bytes_ = 0;
  size_t taken_ = 0, taken_bytes_ = 0;
  int64_t taken_oldest_ms_ = 0, taken_newest_ms_ = 0;
  int64_t acknowledged_ms_ = 0;
  bool woken_ = false;
};

}  // namespace ibpulse::exporters::remote_write
