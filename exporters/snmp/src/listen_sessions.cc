#include "listen_sessions.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ibpulse::exporters::snmp::detail {
namespace {

// The open session whose socket is `fd`: net-snmp's register call keeps the session it made
// to itself, and the fast path needs it.
netsnmp_session* session_on(int fd) {
  for (session_list* s = Sessions; s != nullptr; s = s->next) {
    if (s->transport != nullptr && s->transport->sock == fd) return s->session;
  }
  return nullptr;
}

// The same port on every IPv4 address, of the same kind (datagram or stream).
Transport ipv4_twin(const Transport& listen, uint16_t port) {
  Transport twin;
  twin.domain = listen.stream() ? Transport::Domain::kTcp : Transport::Domain::kUdp;
  twin.host = "0.0.0.0";
  twin.port = port;
  return twin;
}

Result<netsnmp_session*> open_twin(const Transport& twin, const std::string& as_written) {
  const std::string spec = twin.spec();
  netsnmp_transport* transport = netsnmp_transport_open_server("snmp", spec.c_str());
  if (transport == nullptr)
    return Err("cannot listen on {} (its IPv4 side, {}): {}", as_written, spec, bind_failure(twin));
  const int fd = transport->sock;
  if (netsnmp_register_agent_nsap(transport) <= 0)
    return Err("cannot listen on {} (its IPv4 side, {}): net-snmp refused the session", as_written,
               spec);
  netsnmp_session* session = session_on(fd);
  if (session == nullptr)
    return Err("cannot listen on {}: net-snmp has no session on {}", as_written, spec);
  return session;
}

}  // namespace

std::string bind_failure(const Transport& t) {
  sockaddr_storage address{};
  socklen_t length = 0;
  if (t.ipv6()) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&address);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(t.port);
    if (inet_pton(AF_INET6, t.host.c_str(), &a6->sin6_addr) != 1) return "bad address";
    length = sizeof(sockaddr_in6);
  } else {
    auto* a4 = reinterpret_cast<sockaddr_in*>(&address);
    a4->sin_family = AF_INET;
    a4->sin_port = htons(t.port);
    if (inet_pton(AF_INET, t.host.c_str(), &a4->sin_addr) != 1) return "bad address";
    length = sizeof(sockaddr_in);
  }
  const int fd = socket(address.ss_family, t.stream() ? SOCK_STREAM : SOCK_DGRAM, 0);
  if (fd < 0) return fmt::format("cannot open a socket: {}", std::strerror(errno));
  if (t.ipv6()) {  // as net-snmp opens it
    const int on = 1;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
  }
  const int rc = bind(fd, reinterpret_cast<const sockaddr*>(&address), length);
  const int error = errno;
  close(fd);
  if (rc == 0) return "net-snmp could not open it";
  if (error == EADDRINUSE) return "address in use";
  if (error == EACCES) return "permission denied (ports below 1024 need CAP_NET_BIND_SERVICE)";
  if (error == EADDRNOTAVAIL) return "no interface of this host has that address";
  return std::strerror(error);
}

Result<std::vector<netsnmp_session*>> open_listen_sessions(const Transport& listen,
                                                           const std::string& as_written) {
  if (init_master_agent() != 0 || main_session == nullptr)
    return Err("cannot listen on {}: {}", as_written, bind_failure(listen));
  std::vector<netsnmp_session*> sessions = {main_session};
  if (!listen.dual_stack()) return sessions;
  Result<netsnmp_session*> twin = open_twin(ipv4_twin(listen, main_session_port()), as_written);
  if (!twin.ok()) return Error{twin.error()};
  sessions.push_back(*twin);
  return sessions;
}

uint16_t main_session_port() {
  if (main_session == nullptr) return 0;
  netsnmp_transport* t = snmp_sess_transport(snmp_sess_pointer(main_session));
  if (t == nullptr) return 0;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getsockname(t->sock, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
}

}  // namespace ibpulse::exporters::snmp::detail
