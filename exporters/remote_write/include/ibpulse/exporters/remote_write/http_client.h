#pragma once
// POSTs remote-write bodies to one receiver (libcurl: keep-alive, TLS, auth), and the retry
// policy: 2xx is sent; 5xx, 429 (the receiver asks us to slow down) and network errors are
// retried with exponential backoff; any other status (4xx: the receiver will never take this
// body) is not retried and its samples count as failed.
//
// Thread safety: an HttpClient belongs to one sender thread; classify() and Backoff are values.

#include <chrono>
#include <memory>
#include <string>

#include "ibpulse/exporters/remote_write/options.h"

namespace ibpulse::exporters::remote_write {

struct HttpResult {
  long status = 0;    // 0: no HTTP answer (see error)
  std::string error;  // curl's message when there was no answer
  std::string body;   // the start of the answer's body, for the log
};

enum class Outcome { kSent, kRetry, kReject };
Outcome classify(const HttpResult& result);

// min, 2 min, 4 min, ... up to max; reset() after a success.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds min, std::chrono::milliseconds max) : min_(min), max_(max) {}
  std::chrono::milliseconds next();
  void reset() { current_ = {}; }

 private:
  std::chrono::milliseconds min_, max_, current_{};
};

class HttpClient {
 public:
  explicit HttpClient(const Endpoint& endpoint);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResult post(const std::string& body);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibpulse::exporters::remote_write
