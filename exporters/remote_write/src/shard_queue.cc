#include "ibpulse/exporters/remote_write/shard_queue.h"

#include <algorithm>

namespace ibpulse::exporters::remote_write {

ShardQueue::ShardQueue(size_t max_samples, size_t max_bytes, size_t batch_size,
                       Labels external_labels)
    : max_samples_(max_samples),
      max_bytes_(max_bytes),
      batch_size_(std::max<size_t>(1, batch_size)),
      open_(std::move(external_labels)) {}

ShardQueue::Push ShardQueue::push(std::string_view series, double value, int64_t timestamp_ms,
                                  int64_t snapshot_ms) {
  // A request holds one snapshot's samples (the lag is per snapshot).
  if (open_.samples() > 0 && snapshot_ms != open_ms_) close_open();
  const size_t before = open_.raw_bytes();
  if (!open_.add(series, value, timestamp_ms)) return Push::kMalformed;
  {
    std::lock_guard lock(mutex_);
    const size_t grown = open_.raw_bytes() - before;
    if (open_samples_ + ready_samples_ + taken_ + 1 > max_samples_ ||
        open_bytes_ + ready_bytes_ + taken_bytes_ + grown > max_bytes_) {
      open_.undo_last();
      return Push::kFull;
    }
    ++open_samples_;
    open_bytes_ += grown;
    open_ms_ = snapshot_ms;
  }
  if (open_.samples() >= batch_size_) close_open();
  return Push::kQueued;
}

void ShardQueue::close_open() {
  if (open_.samples() == 0) return;
  Request r{open_.take(), 0};
  {
    std::lock_guard lock(mutex_);
    r.samples = open_samples_;
    ready_samples_ += open_samples_;
    ready_bytes_ += r.body.size();
    ready_.push_back({std::move(r), open_ms_});
    open_samples_ = open_bytes_ = 0;
  }
  ready_cv_.notify_one();
}

void ShardQueue::note_snapshot(int64_t snapshot_ms) {
  close_open();
  std::lock_guard lock(mutex_);
  if (ready_.empty() && taken_ == 0) acknowledged_ms_ = std::max(acknowledged_ms_, snapshot_ms);
}

std::optional<ShardQueue::Request> ShardQueue::take(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  ready_cv_.wait_for(lock, wait, [&] { return !ready_.empty() || woken_; });
  if (ready_.empty() || taken_ > 0) return std::nullopt;
  Waiting w = std::move(ready_.front());
  ready_.pop_front();
  ready_samples_ -= w.request.samples;
  ready_bytes_ -= w.request.body.size();
  taken_ = w.request.samples;
  taken_bytes_ = w.request.body.size();
  taken_ms_ = w.snapshot_ms;
  return std::move(w.request);
}

void ShardQueue::acknowledge() {
  std::lock_guard lock(mutex_);
  if (taken_ == 0) return;
  // The snapshot is acknowledged once nothing of it is still waiting.
  const bool whole = ready_.empty() || ready_.front().snapshot_ms != taken_ms_;
  if (whole) acknowledged_ms_ = std::max(acknowledged_ms_, taken_ms_);
  taken_ = taken_bytes_ = 0;
}

void ShardQueue::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  ready_cv_.notify_all();
}

size_t ShardQueue::samples() const {
  std::lock_guard lock(mutex_);
  return open_samples_ + ready_samples_ + taken_;
}

size_t ShardQueue::bytes() const {
  std::lock_guard lock(mutex_);
  return open_bytes_ + ready_bytes_ + taken_bytes_;
}

int64_t ShardQueue::lag_origin_ms() const {
  std::lock_guard lock(mutex_);
  if (taken_ > 0) return taken_ms_;
  if (!ready_.empty()) return ready_.front().snapshot_ms;
  if (open_samples_ > 0) return open_ms_;
  return acknowledged_ms_;
}

}  // namespace ibpulse::exporters::remote_write
