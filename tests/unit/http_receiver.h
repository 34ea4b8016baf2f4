#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1:0 for remote-write tests: answers each POST with the
// status `answer(n)` gives for the n-th request (0-based) and keeps every request's headers
// and body (Request::header() reads one header's values). One thread per connection (curl keeps
// connections alive, one per shard).
//
// Thread safety: the accessors may be called from the test thread while connections run.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace ibpulse::testing {

class HttpReceiver {
 public:
  struct Request {
    std::string head;  // request line and headers
    std::string body;
    size_t connection = 0;  // which connection it came on (0, 1, ... in accept order)

    // The values of every `name:` header line (name case-insensitive, as HTTP has it), in
    // order, without the white space around them: one entry per line the client sent.
    std::vector<std::string> header(std::string_view name) const {
      std::vector<std::string> values;
      size_t at = head.find("\r\n");  // the request line is not a header
      while (at != std::string::npos) {
        const size_t start = at + 2;
        at = head.find("\r\n", start);
        const std::string line = head.substr(start, at == std::string::npos ? at : at - start);
        const size_t colon = line.find(':');
        if (colon != name.size() ||
            !std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) {
              return std::tolower(static_cast<unsigned char>(a)) ==
                     std::tolower(static_cast<unsigned char>(b));
            })) {
          continue;
        }
        const size_t first = line.find_first_not_of(" \t", colon + 1);
        const size_t last = line.find_last_not_of(" \t");
        values.push_back(first == std::string::npos ? "" : line.substr(first, last + 1 - first));
      }
      return values;
    }
  };

  // keep_bodies false: bodies are only counted (bytes()), for benchmarks.
  explicit HttpReceiver(std::function<int(size_t n)> answer, bool keep_bodies = true)
      : answer_(std::move(answer)), keep_bodies_(keep_bodies) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      throw std::system_error(errno, std::system_category(), "HttpReceiver: bind 127.0.0.1:0");
    }
    ::listen(fd_, 16);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    accept_ = std::thread([this] { accept_loop(); });
  }
  ~HttpReceiver() {
    stop_.store(true);
    accept_.join();
    for (auto& t : connections_)
      t.join();
    ::close(fd_);
  }

  uint16_t port() const { return port_; }
  std::string url(const std::string& path = "/api/v1/write") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::vector<Request> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  uint64_t bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
  }
  // Waits until `n` requests came (false after `timeout`).
  bool wait_for(size_t n, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
  }

 private:
  bool readable(int fd) const {
    while (!stop_.load()) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) return true;
    }
    return false;
  }
  void accept_loop() {
    while (readable(fd_)) {
      const int c = ::accept(fd_, nullptr, nullptr);
      const size_t id = connections_.size();
      if (c >= 0) connections_.emplace_back([this, c, id] { serve(c, id); });
    }
  }
  void serve(int c, size_t id) {
    std::string in;
    char buf[65536];
    for (;;) {
      size_t end = in.find("\r\n\r\n");
      while (end == std::string::npos) {
        if (!readable(c)) return (void)::close(c);
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) return (void)::close(c);
        in.append(buf, static_cast<size_t>(n));
        end = in.find("\r\n\r\n");
      }
      Request r{in.substr(0, end), {}, id};
      size_t length = 0;
      for (const char* key : {"Content-Length: ", "content-length: "}) {
        const size_t at = r.head.find(key);
        if (at != std::string::npos) length = std::stoul(r.head.substr(at + 16));
      }
      while (in.size() < end + 4 + length) {
        if (!readable(c)) return (void)::close(c);
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) return (void)::close(c);
        in.append(buf, static_cast<size_t>(n));
      }
      if (keep_bodies_) r.body = in.substr(end + 4, length);
      in.erase(0, end + 4 + length);
      size_t index = 0;
      {
        std::lock_guard lock(mutex_);
        index = requests_.size();
        bytes_ += length;
        requests_.push_back(std::move(r));
      }
      const int status = answer_(index);
      const std::string text = status < 300 ? "" : "rejected by the test receiver\n";
      const std::string reply = "HTTP/1.1 " + std::to_string(status) +
                                " X\r\nContent-Length: " + std::to_string(text.size()) +
                                "\r\n\r\n" + text;
      ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
      arrived_.notify_all();
    }
  }

  std::function<int(size_t)> answer_;
  const bool keep_bodies_;
  uint64_t bytes_ = 0;  // bodies' bytes, under mutex_
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread accept_;
  std::vector<std::thread> connections_;  // the accept thread's only
  mutable std::mutex mutex_;
  mutable std::condition_variable arrived_;
  std::vector<Request> requests_;
};

}  // namespace ibpulse::testing
