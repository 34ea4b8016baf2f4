#pragma once
// One accepted client connection of the metrics server: plain TCP or TLS (OpenSSL), with the
// timeouts that keep a stalled client from holding a worker: a request head must arrive within
// kHeadTimeout, and a response write that makes no progress for kWriteTimeout fails. Private to
// the exporter.
//
// Thread safety: a connection belongs to one worker thread.

#include <openssl/ssl.h>

#include <chrono>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus::detail {

inline constexpr std::chrono::seconds kHeadTimeout{10};
inline constexpr std::chrono::seconds kWriteTimeout{60};
inline constexpr size_t kMaxHeadBytes = 16384;

class Connection {
 public:
  explicit Connection(int fd);  // takes the socket; sets its timeouts
  ~Connection();                // TLS close_notify (best effort), then close
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The TLS handshake, after checking that the client speaks TLS at all: a plain HTTP request
  // gets a plain 400 saying to use https (error "plain HTTP"); a failed handshake (no client
  // certificate where one is required, an unknown CA, a protocol below min_version) is an
  // error with OpenSSL's reason.
  Status start_tls(SSL_CTX* context);

  // The request head, up to and including its blank line. Errors: "timeout", "closed",
  // "too large" (over kMaxHeadBytes), or a read error.
  Result<std::string> read_head();

  // Every byte, or false (the client went away or stalled past kWriteTimeout).
  bool write(std::string_view bytes);

 private:
  int fd_;
  SSL* ssl_ = nullptr;
};

}  // namespace ibpulse::exporters::prometheus::detail
