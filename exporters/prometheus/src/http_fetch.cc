#include "ibpulse/exporters/prometheus/http_fetch.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ibpulse::exporters::prometheus {
namespace {

constexpr size_t kMaxResponse = 64u << 20;
using Clock = std::chrono::steady_clock;

// Closes the socket when it goes out of scope.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

Result<int> connect_to(const HttpUrl& url, Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found); rc != 0) {
    return Err("cannot resolve {}: {}", url.host, gai_strerror(rc));
  }
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      why = std::strerror(errno);
      close(fd);
      fd = -1;
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    int error = 0;
    socklen_t len = sizeof error;
    if (poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count()))) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
      why = error != 0 ? std::strerror(error) : "timed out";
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return Err("cannot connect to {}:{}: {}", url.host, url.port, why);
  return fd;
}

// Reads until the peer closes (the request asked it to), the deadline, or the size limit.
Result<std::string> read_all(int fd, Clock::time_point deadline) {
  std::string data;
  char buf[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) {
      return Err("no complete answer within the timeout");
    }
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return Err("reading the answer: {}", std::strerror(errno));
    if (n == 0) return data;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > kMaxResponse) return Err("the answer is over 64 MiB");
  }
}

Result<std::string> dechunk(std::string_view body) {
  std::string out;
  for (;;) {
    const size_t eol = body.find("\r\n");
    if (eol == std::string_view::npos) return Err("a chunked body ends early");
    const size_t size = std::strtoul(std::string(body.substr(0, eol)).c_str(), nullptr, 16);
    body.remove_prefix(eol + 2);
    if (size == 0) return out;
    if (body.size() < size + 2) return Err("a chunked body ends early");
    out.append(body.substr(0, size));
    body.remove_prefix(size + 2);
  }
}

bool has_field(std::string_view head, std::string_view field) {
  std::string lower(head);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(field) != std::string::npos;
}

}  // namespace

Result<HttpUrl> parse_http_url(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) {
    return Err("'{}': give an http:// URL (https is not supported by top yet)", url);
  }
  std::string_view rest = std::string_view(url).substr(kScheme.size());
  HttpUrl out;
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) out.path = std::string(rest.substr(slash));
  if (authority.find('@') != std::string_view::npos) {
    return Err("'{}': user names and passwords in the URL are not supported", url);
  }
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Err("'{}': an IPv6 address lacks its ]", url);
    out.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty() && !authority.starts_with(':')) return Err("'{}': bad host", url);
    if (!authority.empty()) out.port = std::string(authority.substr(1));
  } else {
    const size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) out.port = std::string(authority.substr(colon + 1));
  }
  if (out.host.empty()) return Err("'{}': no host", url);
  if (out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) {
    return Err("'{}': bad port '{}'", url, out.port);
  }
  return out;
}

Result<std::string> http_get_body(const HttpUrl& url, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto fd = connect_to(url, deadline);
  if (!fd) return Error{fd.error()};
  Socket socket{*fd};
  const std::string host =
      url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  const std::string request = "GET " + url.path + " HTTP/1.1\r\nHost: " + host + ":" + url.port +
                              "\r\nConnection: close\r\nAccept: application/json\r\n\r\n";
  if (send(socket.fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    return Err("sending the request to {}:{}: {}", url.host, url.port, std::strerror(errno));
  }
  auto data = read_all(socket.fd, deadline);
  if (!data) return Err("{}:{}: {}", url.host, url.port, data.error());
  const size_t head_end = data->find("\r\n\r\n");
  if (head_end == std::string::npos || !data->starts_with("HTTP/1.")) {
    return Err("{}:{} did not answer HTTP", url.host, url.port);
  }
  const std::string_view head = std::string_view(*data).substr(0, head_end);
  const std::string_view status = head.substr(0, head.find("\r\n"));
  if (status.size() < 12 || status.substr(9, 3) != "200") {
    return Err("{}{}: {}", url.host, url.path, status.size() > 9 ? status.substr(9) : status);
  }
  const std::string_view body = std::string_view(*data).substr(head_end + 4);
  if (has_field(head, "transfer-encoding: chunked")) return dechunk(body);
  return std::string(body);
}

}  // namespace ibpulse::exporters::prometheus
