#pragma once
// Accepted connections waiting for a worker of the metrics server, and the ones in hand.
// Bounded: past kMaxWaiting, new connections are closed at once (a scraper retries at its next
// interval) rather than piling up behind a slow scrape. At stop, the waiting ones are closed and
// the ones in hand have their reading side shut, so a worker waiting for a request head is
// released at once while a response being written still completes. Private to the exporter.
//
// Thread safety: every member may be called from any thread.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>

namespace ibpulse::exporters::prometheus::detail {

class ConnectionQueue {
 public:
  static constexpr size_t kMaxWaiting = 64;

  ~ConnectionQueue();  // closes what is still waiting

  bool push(int fd);         // false: stopping or full; the caller closes fd
  std::optional<int> pop();  // blocks; nothing once stopping
  void done(int fd);         // the worker is about to close fd
  void stop();

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int> waiting_;
  std::set<int> in_hand_;
  bool stopping_ = false;
};

}  // namespace ibpulse::exporters::prometheus::detail
