#include "connection_queue.h"

#include <sys/socket.h>
#include <unistd.h>

namespace ibpulse::exporters::prometheus::detail {

ConnectionQueue::~ConnectionQueue() {
  for (const int fd : waiting_)
    close(fd);
}

bool ConnectionQueue::push(int fd) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ || waiting_.size() >= kMaxWaiting) return false;
    waiting_.push_back(fd);
  }
  ready_.notify_one();
  return true;
}

std::optional<int> ConnectionQueue::pop() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
  if (stopping_) return std::nullopt;
  const int fd = waiting_.front();
  waiting_.pop_front();
  in_hand_.insert(fd);
  return fd;
}

void ConnectionQueue::done(int fd) {
  const std::lock_guard lock(mutex_);
  in_hand_.erase(fd);
}

void ConnectionQueue::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const int fd : in_hand_)
      shutdown(fd, SHUT_RD);
  }
  ready_.notify_all();
}

}  // namespace ibpulse::exporters::prometheus::detail
