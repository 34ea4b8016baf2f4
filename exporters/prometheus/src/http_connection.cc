#include "http_connection.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "http_request.h"
#include "tls_context.h"

namespace ibpulse::exporters::prometheus::detail {
namespace {

constexpr unsigned char kTlsHandshakeRecord = 0x16;  // the first byte of every ClientHello
constexpr std::string_view kUseHttps = "Client sent an HTTP request to an HTTPS server.\n";
constexpr std::chrono::seconds kDrainTimeout{1};
constexpr size_t kDrainBytes = size_t{256} * 1024;

timeval to_timeval(std::chrono::seconds s) {
  return timeval{static_cast<time_t>(s.count()), 0};
}

}  // namespace

Connection::Connection(int fd) : fd_(fd) {
  const timeval read_timeout = to_timeval(kHeadTimeout);
  const timeval write_timeout = to_timeval(kWriteTimeout);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &read_timeout, sizeof read_timeout);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &write_timeout, sizeof write_timeout);
}

Connection::~Connection() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);  // one-way close_notify: the client need not answer
    SSL_free(ssl_);
    ERR_clear_error();
  }
  // A lingering close: closing a socket with unread bytes (a request body, headers past the
  // limit) sends a reset, which can make the client drop the response it has not read yet. So
  // the response is ended first, and what the client still sends is read and dropped until it
  // closes too, for at most kDrainTimeout or kDrainBytes.
  shutdown(fd_, SHUT_WR);
  const timeval drain_timeout = to_timeval(kDrainTimeout);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &drain_timeout, sizeof drain_timeout);
  std::array<char, 4096> sink{};
  for (size_t drained = 0; drained < kDrainBytes;) {
    const ssize_t n = recv(fd_, sink.data(), sink.size(), 0);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
  close(fd_);
}

Status Connection::start_tls(SSL_CTX* context) {
  unsigned char first = 0;
  const ssize_t peeked = recv(fd_, &first, 1, MSG_PEEK);
  if (peeked <= 0) return Error{peeked == 0 ? "closed" : "timeout"};
  if (first != kTlsHandshakeRecord) {
    write(
        fmt::format("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    "Connection: close\r\nContent-Length: {}\r\n\r\n{}",
                    kUseHttps.size(), kUseHttps));
    return Err("plain HTTP");
  }
  ssl_ = SSL_new(context);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1)
    return Err("{}", take_openssl_error("the client closed the connection"));
  if (SSL_accept(ssl_) != 1)
    return Err("{}", take_openssl_error("the client closed the connection"));
  return Ok{};
}

Result<std::string> Connection::read_head() {
  const auto deadline = std::chrono::steady_clock::now() + kHeadTimeout;
  std::string head;
  std::array<char, 4096> buffer{};
  while (!head_end(head).has_value()) {
    if (head.size() > kMaxHeadBytes) return Err("too large");
    if (std::chrono::steady_clock::now() > deadline) return Err("timeout");
    int n = 0;
    if (ssl_ != nullptr) {
      n = SSL_read(ssl_, buffer.data(), static_cast<int>(buffer.size()));
      if (n <= 0) {
        ERR_clear_error();
        return Error{SSL_get_error(ssl_, n) == SSL_ERROR_ZERO_RETURN ? "closed" : "timeout"};
      }
    } else {
      const ssize_t got = recv(fd_, buffer.data(), buffer.size(), 0);
      if (got == 0) return Err("closed");
      if (got < 0) {
        return Error{errno == EAGAIN || errno == EWOULDBLOCK ? "timeout" : "read error"};
      }
      n = static_cast<int>(got);
    }
    head.append(buffer.data(), static_cast<size_t>(n));
  }
  // Bytes after the head (a request body, a pipelined request) are not read: GET and HEAD
  // carry no body and every response closes the connection.
  head.resize(*head_end(head));
  if (head.size() > kMaxHeadBytes) return Err("too large");
  return head;
}

bool Connection::write(std::string_view bytes) {
  while (!bytes.empty()) {
    if (ssl_ != nullptr) {
      const int n =
          SSL_write(ssl_, bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), 1U << 30)));
      if (n <= 0) {
        ERR_clear_error();
        return false;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace ibpulse::exporters::prometheus::detail
