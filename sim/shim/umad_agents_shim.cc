// Preloaded after libumad2sim by `ibpulse sim` for every client of a simulated fabric: two
// things the kernel does that umad2sim (ibsim's libumad2sim0) does not.
//
// 1. It gives back the MAD agents of a umad port when the port is closed. umad2sim has 32 agent
//    slots per device, and its close() frees only the first agent registered on the closed fd.
//    libibnetdisc opens a port for every discovery and registers two SMP classes on it (0x81
//    and 0x01), so each discovery leaked a slot: after about 15 discoveries a daemon's next one
//    failed with "client_register for mgmt 129 failed" (ENOMEM), and it polled a topology it
//    could no longer refresh. umad_close_port now unregisters the agents left before it closes
//    the port.
//
// 2. It hands a request (a MAD without the response bit: Get, Set, Trap, Report, ...) only to an
//    agent registered with that method in its method mask. umad2sim hands every MAD of a class
//    to the agent of that class, and ibsim forwards to the client holding the SM role at a node
//    the requests it does not answer itself (PortSamplesControl, for one): opensm's performance
//    manager agent, registered for responses only, received the daemon's PortSamplesControl
//    reads to the SM's node and opensm crashed (SIGSEGV) on the first one. umad_recv now drops
//    such a MAD, as the kernel never delivers it.
//
// How: umad_register, umad_register_oui, umad_register2 and umad_unregister are wrapped to
// remember which agents each fd holds, with their method masks; umad_close_port unregisters
// the ones left; umad_recv skips requests no mask asks for. Everything else passes through to
// libibumad. Real hardware never loads this.
//
// Thread safety: the table is guarded by a mutex; libibumad's calls are made outside it.
#include <dlfcn.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace {

constexpr uint8_t kResponseBit = 0x80;  // of a MAD's method

struct Agent {
  int id;
  std::array<uint64_t, 2> methods;  // bit m: method m is delivered as a request
};

std::mutex g_mutex;
std::map<int, std::vector<Agent>>& agents() {
  static auto* table = new std::map<int, std::vector<Agent>>;  // never destroyed: used at exit
  return *table;
}

template <typename Fn>
Fn real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// umad_register's mask: an array of longs, bit m of the whole for method m (none: no requests).
std::array<uint64_t, 2> mask_of(const long* method_mask) {
  std::array<uint64_t, 2> bits{};
  if (method_mask != nullptr) std::memcpy(bits.data(), method_mask, sizeof bits);
  return bits;
}

void remember(int fd, int agent, std::array<uint64_t, 2> methods) {
  if (agent < 0) return;
  const std::lock_guard lock(g_mutex);
  auto& held = agents()[fd];
  // Once, even if libibumad's register calls reach each other through these wrappers.
  const auto it =
      std::find_if(held.begin(), held.end(), [&](const Agent& a) { return a.id == agent; });
  if (it == held.end()) {
    held.push_back({agent, methods});
  } else {
    it->methods[0] |= methods[0];
    it->methods[1] |= methods[1];
  }
}

void forget(int fd, int agent) {
  const std::lock_guard lock(g_mutex);
  auto& held = agents()[fd];
  held.erase(
      std::remove_if(held.begin(), held.end(), [&](const Agent& a) { return a.id == agent; }),
      held.end());
}

std::vector<int> take(int fd) {
  const std::lock_guard lock(g_mutex);
  auto it = agents().find(fd);
  if (it == agents().end()) return {};
  std::vector<int> held;
  for (const Agent& a : it->second)
    held.push_back(a.id);
  agents().erase(it);
  return held;
}

// A request the kernel would not have delivered to `agent` of `fd`: its method is not in the
// agent's mask. (An agent this table does not know is given everything, as before.)
bool unasked(int fd, int agent, const void* umad) {
  if (umad_status(const_cast<void*>(umad)) != 0) return false;  // our own send, returned
  const auto* mad = static_cast<const uint8_t*>(umad_get_mad(const_cast<void*>(umad)));
  const uint8_t method = mad[3];
  if ((method & kResponseBit) != 0) return false;
  const std::lock_guard lock(g_mutex);
  const auto it = agents().find(fd);
  if (it == agents().end()) return false;
  for (const Agent& a : it->second)
    if (a.id == agent) return ((a.methods[method / 64] >> (method % 64)) & 1) == 0;
  return false;
}

}  // namespace

extern "C" {

// Parameter names as umad.h has them.
int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
                  long method_mask[]) {
  static const auto next = real<int (*)(int, int, int, uint8_t, long[])>("umad_register");
  const int agent = next(portid, mgmt_class, mgmt_version, rmpp_version, method_mask);
  remember(portid, agent, mask_of(method_mask));
  return agent;
}

int umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3],
                      long method_mask[]) {
  static const auto next =
      real<int (*)(int, int, uint8_t, uint8_t[3], long[])>("umad_register_oui");
  const int agent = next(portid, mgmt_class, rmpp_version, oui, method_mask);
  remember(portid, agent, mask_of(method_mask));
  return agent;
}

int umad_register2(int port_fd, struct umad_reg_attr* attr, uint32_t* agent_id) {
  static const auto next = real<int (*)(int, umad_reg_attr*, uint32_t*)>("umad_register2");
  const int rc = next(port_fd, attr, agent_id);
  if (rc == 0 && agent_id != nullptr && attr != nullptr) {
    remember(port_fd, static_cast<int>(*agent_id), {attr->method_mask[0], attr->method_mask[1]});
  }
  return rc;
}

int umad_unregister(int portid, int agentid) {
  static const auto next = real<int (*)(int, int)>("umad_unregister");
  forget(portid, agentid);
  return next(portid, agentid);
}

int umad_recv(int portid, void* umad, int* length, int timeout_ms) {
  static const auto next = real<int (*)(int, void*, int*, int)>("umad_recv");
  const int room = *length;
  for (;;) {
    *length = room;
    const int agent = next(portid, umad, length, timeout_ms);
    if (agent < 0 || !unasked(portid, agent, umad)) return agent;
  }
}

int umad_close_port(int portid) {
  static const auto unregister = real<int (*)(int, int)>("umad_unregister");
  static const auto next = real<int (*)(int)>("umad_close_port");
  for (const int agent : take(portid))
    unregister(portid, agent);
  return next(portid);
}

}  // extern "C"
