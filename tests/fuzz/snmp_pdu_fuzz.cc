// Whole SNMP messages, as datagrams over loopback, into the real agent (net-snmp's parser,
// then the fast path or net-snmp's handlers over a synthetic fabric's MibView, in this
// process, so ASan and UBSan see our code handle every decoded PDU). After each input a valid
// GET with a fresh request-id follows; its response proves the agent thread handled the input
// and is still answering (sent again every 2 s, as UDP may lose it; none in 30 s: a hang,
// reported as a crash).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/agent.h"
#include "synthetic_fabric.h"

namespace {

using namespace ibpulse;

struct Target {
  converters::SnapshotStore store;
  std::unique_ptr<exporters::snmp::SnmpAgent> agent;
  int fd = -1;
  sockaddr_in to{};
  uint32_t request_id = 0x10000000;
};

Target& target() {
  static Target* t = [] {
    auto* made = new Target;
    made->store.publish(bench::synthetic_snapshot(72));  // two 36-port switches
    exporters::snmp::AgentOptions options;
    options.listen = "127.0.0.1:0";
    options.communities = {"public"};
    options.log = [](int, std::string_view) {};
    auto agent = exporters::snmp::SnmpAgent::start(options, &made->store);
    if (!agent.ok()) __builtin_trap();
    made->agent = std::move(*agent);
    made->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const timeval wait{2, 0};
    setsockopt(made->fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    made->to.sin_family = AF_INET;
    made->to.sin_port = htons(made->agent->port());
    made->to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return made;
  }();
  return *t;
}

// A v2c GET of sysUpTime.0 with community "public" and `id` as its request-id.
std::vector<uint8_t> probe(uint32_t id) {
  return {0x30,
          0x29,
          0x02,
          0x01,
          0x01,
          0x04,
          0x06,
          'p',
          'u',
          'b',
          'l',
          'i',
          'c',
          0xa0,
          0x1c,
          0x02,
          0x04,
          uint8_t(id >> 24),
          uint8_t(id >> 16),
          uint8_t(id >> 8),
          uint8_t(id),
          0x02,
          0x01,
          0x00,
          0x02,
          0x01,
          0x00,
          0x30,
          0x0e,
          0x30,
          0x0c,
          0x06,
          0x08,
          0x2b,
          0x06,
          0x01,
          0x02,
          0x01,
          0x01,
          0x03,
          0x00,
          0x05,
          0x00};
}

bool answers(const uint8_t* reply, size_t size, uint32_t id) {
  const std::array<uint8_t, 6> want = {
      0x02, 0x04, uint8_t(id >> 24), uint8_t(id >> 16), uint8_t(id >> 8), uint8_t(id)};
  for (size_t i = 0; i + want.size() <= size; ++i) {
    if (std::equal(want.begin(), want.end(), reply + i)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Target& t = target();
  const auto* to = reinterpret_cast<const sockaddr*>(&t.to);
  if (size > 0 && size <= 65507) sendto(t.fd, data, size, 0, to, sizeof t.to);
  const uint32_t id = ++t.request_id;
  const auto request = probe(id);
  std::vector<uint8_t> reply(65536);
  // UDP may lose a datagram: the probe goes again every 2 s; 15 unanswered (30 s) is a hang.
  for (int attempt = 0; attempt < 15; ++attempt) {
    if (attempt > 0) fprintf(stderr, "snmp_pdu: probe %u sent again (%d)\n", id, attempt);
    sendto(t.fd, request.data(), request.size(), 0, to, sizeof t.to);
    for (;;) {  // the input's own answers (if any) come first
      const ssize_t n = recv(t.fd, reply.data(), reply.size(), 0);
      if (n < 0) break;
      if (answers(reply.data(), static_cast<size_t>(n), id)) return 0;
    }
  }
  __builtin_trap();  // the agent thread hangs or has stopped answering
}
