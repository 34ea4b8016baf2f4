#include "listen_socket.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "ibpulse/base/number.h"

namespace ibpulse::exporters::prometheus::detail {
namespace {

constexpr int kBacklog = 128;

std::string errno_text(int error) {
  if (error == EADDRINUSE) return "address in use";
  return std::strerror(error);
}

// A socket bound to `addr` and listening; dual-stack when it is IPv6's any-address.
Result<int> bind_and_listen(const sockaddr* addr, socklen_t length, int family) {
  const int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Err("{}", errno_text(errno));
  const int on = 1;
  const int off = 0;
  // A restarted daemon binds again at once, while its old connections are in TIME_WAIT.
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  if (bind(fd, addr, length) != 0 || listen(fd, kBacklog) != 0) {
    const int error = errno;
    close(fd);
    return Err("{}", errno_text(error));
  }
  return fd;
}

Result<int> listen_on_every_address(uint16_t port) {
  sockaddr_in6 any6{};
  any6.sin6_family = AF_INET6;
  any6.sin6_addr = in6addr_any;
  any6.sin6_port = htons(port);
  if (const int probe = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0); probe >= 0) {
    close(probe);
    return bind_and_listen(reinterpret_cast<const sockaddr*>(&any6), sizeof any6, AF_INET6);
  }
  sockaddr_in any4{};  // a host without IPv6
  any4.sin_family = AF_INET;
  any4.sin_addr.s_addr = htonl(INADDR_ANY);
  any4.sin_port = htons(port);
  return bind_and_listen(reinterpret_cast<const sockaddr*>(&any4), sizeof any4, AF_INET);
}

Result<int> listen_on_host(const ListenAddress& where) {
  addrinfo hints{};
  hints.ai_family = where.ipv6_literal ? AF_INET6 : AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | (where.ipv6_literal ? AI_NUMERICHOST : 0);
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (const int rc = getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Err("{}", gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, &freeaddrinfo);
  return bind_and_listen(found->ai_addr, found->ai_addrlen, found->ai_family);
}

uint16_t bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) return 0;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

}  // namespace

Result<ListenAddress> parse_listen_address(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return Err("bad listen address '{}': want [host]:port, e.g. :9731 or [::1]:9731", address);
  }
  ListenAddress parsed;
  std::string_view host = std::string_view(address).substr(0, colon);
  const Result<uint64_t> port = parse_unsigned(std::string_view(address).substr(colon + 1));
  if (!port.ok() || *port > 65535) {
    return Err("bad listen address '{}': port must be 0 to 65535", address);
  }
  parsed.port = static_cast<uint16_t>(*port);
  if (host.starts_with('[')) {
    if (!host.ends_with(']') || host.size() < 3) {
      return Err("bad listen address '{}': an IPv6 address goes in brackets, [::1]:9731", address);
    }
    host = host.substr(1, host.size() - 2);
    parsed.ipv6_literal = true;
  } else if (host.find(':') != std::string_view::npos) {
    return Err("bad listen address '{}': an IPv6 address goes in brackets, [::1]:9731", address);
  }
  parsed.host = std::string(host);
  return parsed;
}

Result<Listener> open_listener(const std::string& address) {
  Result<ListenAddress> where = parse_listen_address(address);
  if (!where.ok()) return Error{where.error()};
  Result<int> fd = where->host.empty() || (where->ipv6_literal && where->host == "::")
                       ? listen_on_every_address(where->port)
                       : listen_on_host(*where);
  if (!fd.ok()) return Err("cannot listen on {}: {}", address, fd.error());
  return Listener{*fd, bound_port(*fd)};
}

}  // namespace ibpulse::exporters::prometheus::detail
