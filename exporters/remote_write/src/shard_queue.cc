#include "ibpulse/exporters/remote_write/shard_queue.h"

#include <algorithm>

namespace ibpulse::exporters::remote_write {

ShardQueue::ShardQueue(size_t max_samples, size_t max_bytes, size_t wake_at)
    : max_samples_(max_samples), max_bytes_(max_bytes), wake_at_(std::max<size_t>(1, wake_at)) {}

bool ShardQueue::push(Sample sample, int64_t snapshot_ms) {
  const size_t c = cost(sample);
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (queue_.size() + taken_ + 1 > max_samples_ || bytes_ + taken_bytes_ + c > max_bytes_) {
      return false;
    }
    queue_.push_back({std::move(sample), snapshot_ms});
    bytes_ += c;
    wake = queue_.size() % wake_at_ == 0;
  }
  if (wake) ready_.notify_one();
  return true;
}

void ShardQueue::note_snapshot(int64_t snapshot_ms) {
  {
    std::lock_guard lock(mutex_);
    if (queue_.empty() && taken_ == 0) acknowledged_ms_ = std::max(acknowledged_ms_, snapshot_ms);
    complete_ = !queue_.empty();
  }
  ready_.notify_one();
}

std::vector<Sample> ShardQueue::take(size_t max, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  ready_.wait_for(lock, wait, [&] {
    return queue_.size() >= std::min(max, wake_at_) || (complete_ && !queue_.empty()) || woken_;
  });
  std::vector<Sample> out;
  const size_t n = std::min(max, queue_.size());
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Entry& e = queue_.front();
    if (i == 0) taken_oldest_ms_ = e.snapshot_ms;
    taken_newest_ms_ = e.snapshot_ms;
    const size_t c = cost(e.sample);
    bytes_ -= c;
    taken_bytes_ += c;
    out.push_back(std::move(e.sample));
    queue_.pop_front();
  }
  taken_ += n;
  if (queue_.empty()) complete_ = false;
  return out;
}

void ShardQueue::acknowledge() {
  std::lock_guard lock(mutex_);
  if (taken_ == 0) return;
  // The snapshot of the batch's last sample is complete only if nothing of it is still queued.
  const bool whole = queue_.empty() || queue_.front().snapshot_ms != taken_newest_ms_;
  acknowledged_ms_ = std::max(acknowledged_ms_, whole ? taken_newest_ms_ : taken_oldest_ms_);
  taken_ = taken_bytes_ = 0;
}

void ShardQueue::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  ready_.notify_all();
}

size_t ShardQueue::samples() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + taken_;
}

size_t ShardQueue::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_ + taken_bytes_;
}

int64_t ShardQueue::lag_origin_ms() const {
  std::lock_guard lock(mutex_);
  if (taken_ > 0) return taken_oldest_ms_;
  if (!queue_.empty()) return queue_.front().snapshot_ms;
  return acknowledged_ms_;
}

}  // namespace ibpulse::exporters::remote_write
