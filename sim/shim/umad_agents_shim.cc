// Preloaded after libumad2sim by `ibpulse sim` for every client of a simulated fabric: gives
// back the MAD agents of a umad port when the port is closed, as the kernel does.
//
// Why: umad2sim (ibsim's libumad2sim0) has 32 agent slots per device, and its close() frees
// only the first agent registered on the closed fd. libibnetdisc opens a port for every
// discovery and registers two SMP classes on it (0x81 and 0x01), so each discovery leaked a
// slot: after about 15 discoveries a daemon's next one failed with "client_register for mgmt
// 129 failed" (ENOMEM), and it polled a topology it could no longer refresh.
//
// How: umad_register, umad_register_oui, umad_register2 and umad_unregister are wrapped to
// remember which agents each fd holds; umad_close_port unregisters the ones left before it
// closes the port. Everything else passes through to libibumad. Real hardware never loads this.
//
// Thread safety: the table is guarded by a mutex; libibumad's calls are made outside it.
#include <dlfcn.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace {

std::mutex g_mutex;
std::map<int, std::vector<int>>& agents() {
  static auto* table = new std::map<int, std::vector<int>>;  // never destroyed: used at exit
  return *table;
}

template <typename Fn>
Fn real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void remember(int fd, int agent) {
  if (agent < 0) return;
  const std::lock_guard lock(g_mutex);
  auto& held = agents()[fd];
  // Once, even if libibumad's register calls reach each other through these wrappers.
  if (std::find(held.begin(), held.end(), agent) == held.end()) held.push_back(agent);
}

void forget(int fd, int agent) {
  const std::lock_guard lock(g_mutex);
  auto& held = agents()[fd];
  held.erase(std::remove(held.begin(), held.end(), agent), held.end());
}

std::vector<int> take(int fd) {
  const std::lock_guard lock(g_mutex);
  auto it = agents().find(fd);
  if (it == agents().end()) return {};
  std::vector<int> held = std::move(it->second);
  agents().erase(it);
  return held;
}

}  // namespace

extern "C" {

// Parameter names as umad.h has them.
int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
                  long method_mask[]) {
  static const auto next = real<int (*)(int, int, int, uint8_t, long[])>("umad_register");
  const int agent = next(portid, mgmt_class, mgmt_version, rmpp_version, method_mask);
  remember(portid, agent);
  return agent;
}

int umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3],
                      long method_mask[]) {
  static const auto next =
      real<int (*)(int, int, uint8_t, uint8_t[3], long[])>("umad_register_oui");
  const int agent = next(portid, mgmt_class, rmpp_version, oui, method_mask);
  remember(portid, agent);
  return agent;
}

int umad_register2(int port_fd, struct umad_reg_attr* attr, uint32_t* agent_id) {
  static const auto next = real<int (*)(int, umad_reg_attr*, uint32_t*)>("umad_register2");
  const int rc = next(port_fd, attr, agent_id);
  if (rc == 0 && agent_id != nullptr) remember(port_fd, static_cast<int>(*agent_id));
  return rc;
}

int umad_unregister(int portid, int agentid) {
  static const auto next = real<int (*)(int, int)>("umad_unregister");
  forget(portid, agentid);
  return next(portid, agentid);
}

int umad_close_port(int portid) {
  static const auto unregister = real<int (*)(int, int)>("umad_unregister");
  static const auto next = real<int (*)(int)>("umad_close_port");
  for (const int agent : take(portid))
    unregister(portid, agent);
  return next(portid);
}

}  // extern "C"
