// pma_responder: a test PMA for the simulated fabric. ibsim 0.10 does not answer
// PortSamplesControl/Result/ResultExtended or PortExtendedSpeedsCounters; it forwards them to
// the client attached at the target node that flagged itself as SM. This program is that
// client: it answers them as pma_emulation.h documents (values, timing, state-file modes).
//
//   IBSIM_SOCKNAME=<fabric socket>
//   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
//   SIM_HOST=Hca2 SIM_SET_ISSM=1
//   pma_responder [--state-file PATH] [--ready-file PATH] [-v]
//
// SIM_HOST must not be the node of the fabric's resident opensm (ibsim allows one SM per
// node; the default fabric's opensm is at Switch1, its first node). The ready file is written
// (atomically) once every agent is registered and removed on exit; SIGTERM/SIGINT stop the
// responder cleanly (it clears the node's IsSM capability bit, then umad2sim detaches it).
// Exit status: 0 after a signal, 1 on a runtime failure, 2 on a usage/environment error.

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mad_layout.h"
#include "pma_emulation.h"

namespace {

using ibpulse::tools::Disposition;
using ibpulse::tools::kMadSize;
using ibpulse::tools::PmaEmulator;
using ibpulse::tools::StateMode;

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) {
  g_stop = 1;
}

struct Options {
  std::string state_file;
  std::string ready_file;
  bool verbose = false;
};

// Classes registered, with their class versions. 0x01/0x81/0x04 are the ones we serve; SA and
// congestion control are registered only so that a stray MAD of those classes gets a 0x000C
// answer: umad2sim's receiver thread crashes on a MAD of a class nobody registered.
struct AgentClass {
  uint8_t mgmt_class;
  int version;
};
constexpr std::array<AgentClass, 5> kClasses = {{{ibpulse::tools::kClassSmiLid, 1},
                                                 {ibpulse::tools::kClassSmiDirected, 1},
                                                 {ibpulse::tools::kClassPerformance, 1},
                                                 {ibpulse::tools::kClassSa, 2},
                                                 {ibpulse::tools::kClassCongestion, 2}}};

constexpr int kRecvTimeoutMs = 200;  // how often the loop looks at the stop flag
constexpr int kQp1Qkey = static_cast<int>(0x80010000u);

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "pma_responder: {}\n", message);
  fmt::print(stderr, "usage: pma_responder [--state-file PATH] [--ready-file PATH] [-v]\n");
  std::exit(2);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "--state-file") {
      o.state_file = value();
    } else if (arg == "--ready-file") {
      o.ready_file = value();
    } else if (arg == "-v" || arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      fmt::print("usage: pma_responder [--state-file PATH] [--ready-file PATH] [-v]\n");
      std::exit(0);
    } else {
      usage_error(fmt::format("unknown argument '{}'", arg));
    }
  }
  return o;
}

void check_environment() {
  const char* issm = std::getenv("SIM_SET_ISSM");
  if (issm == nullptr || *issm == '\0') {
    usage_error("SIM_SET_ISSM=1 is required: ibsim forwards MADs only to an SM client");
  }
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload == nullptr || std::strstr(preload, "umad2sim") == nullptr) {
    usage_error("must run under umad2sim (LD_PRELOAD=.../umad2sim/libumad2sim.so)");
  }
  if (std::getenv("IBSIM_SOCKNAME") == nullptr) {
    fmt::print(stderr, "pma_responder: warning: IBSIM_SOCKNAME unset, using ibsim's default\n");
  }
  if (std::getenv("SIM_HOST") == nullptr) {
    fmt::print(stderr,
               "pma_responder: warning: SIM_HOST unset: attaching at the first node, where the "
               "resident opensm usually is (ibsim then refuses a second SM)\n");
  }
}

// The state file's first word; a missing or unreadable file means normal operation.
StateMode read_state(const std::string& path) {
  if (path.empty()) return StateMode::kNormal;
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return StateMode::kNormal;
  if (word == "foreign") return StateMode::kForeign;
  if (word == "clobber") return StateMode::kClobber;
  return StateMode::kNormal;
}

bool write_ready_file(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << content;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

// umad2sim turns the IsSM capability bit on when the issm device is opened and off when it is
// closed. SIM_SET_ISSM set it at attach time; clearing it on exit keeps a later opensm sweep
// from querying SMInfo of an SM that is gone.
void clear_issm_bit(const char* ca_name, int portnum) {
  char path[256] = {};
  if (umad_get_issm_path(ca_name, portnum, path, sizeof(path)) < 0) return;
  const int fd = ::open(path, O_RDWR);
  if (fd >= 0) ::close(fd);
}

struct Stats {
  uint64_t answered = 0;
  uint64_t ignored = 0;
  uint64_t bounced = 0;  // umad status != 0 (e.g. 110: a reply of ours that could not be routed)
  uint64_t send_errors = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options opts = parse_args(argc, argv);
  check_environment();
  if (!opts.ready_file.empty()) std::remove(opts.ready_file.c_str());

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  if (umad_init() < 0) {
    fmt::print(stderr, "pma_responder: umad_init failed\n");
    return 1;
  }
  // Opening the port attaches this process to ibsim (as an SM, at SIM_HOST).
  const int fd = umad_open_port(nullptr, 0);
  if (fd < 0) {
    fmt::print(stderr, "pma_responder: umad_open_port failed: {}\n", std::strerror(-fd));
    return 1;
  }
  umad_port_t port{};
  if (umad_get_port(nullptr, 0, &port) < 0) {
    fmt::print(stderr, "pma_responder: umad_get_port failed\n");
    return 1;
  }
  umad_ca_t ca{};
  const bool is_switch = umad_get_ca(port.ca_name, &ca) == 0 && ca.node_type == 2;
  const std::string ca_name = port.ca_name;
  const int portnum = port.portnum;
  const unsigned lid = port.base_lid;
  umad_release_port(&port);

  std::array<int, 256> agent_of_class{};
  agent_of_class.fill(-1);
  for (const auto& c : kClasses) {
    // Receive Get (0x01) and Set (0x02) requests. (umad2sim routes by class only and ignores
    // the mask; a kernel would honour it.)
    long method_mask[16 / sizeof(long)] = {};
    method_mask[0] = (1L << ibpulse::tools::kMethodGet) | (1L << ibpulse::tools::kMethodSet);
    const int agent = umad_register(fd, c.mgmt_class, c.version, 0, method_mask);
    if (agent < 0) {
      fmt::print(stderr, "pma_responder: cannot register class 0x{:02x}: {}\n", c.mgmt_class,
                 std::strerror(-agent));
      return 1;
    }
    agent_of_class[c.mgmt_class] = agent;
  }

  const std::string where = fmt::format("{} port {} lid {} ({})", ca_name, portnum, lid,
                                        is_switch ? "switch: PortSelect picks the port" : "CA");
  if (!opts.ready_file.empty() &&
      !write_ready_file(opts.ready_file, fmt::format("pid {}\nlid {}\nport {}\nswitch {}\n",
                                                     getpid(), lid, portnum, is_switch ? 1 : 0))) {
    fmt::print(stderr, "pma_responder: cannot write the ready file {}\n", opts.ready_file);
    return 1;
  }
  fmt::print(stderr, "pma_responder: serving at {}\n", where);

  PmaEmulator emulator(is_switch, static_cast<unsigned>(portnum));
  std::vector<uint8_t> in(umad_size() + kMadSize);
  std::vector<uint8_t> out(umad_size() + kMadSize);
  Stats stats;
  while (g_stop == 0) {
    int length = static_cast<int>(kMadSize);
    const int agent = umad_recv(fd, in.data(), &length, kRecvTimeoutMs);
    if (agent < 0) continue;  // timeout, or a spurious wake-up of umad2sim's poll
    if (umad_status(in.data()) != 0) {
      ++stats.bounced;
      continue;
    }
    auto* request = static_cast<uint8_t*>(umad_get_mad(in.data()));
    auto* reply = static_cast<uint8_t*>(umad_get_mad(out.data()));
    const auto now = ibpulse::tools::SteadyClock::now();
    const Disposition d =
        emulator.answer(std::span<const uint8_t, kMadSize>(request, kMadSize), now,
                        read_state(opts.state_file), std::span<uint8_t, kMadSize>(reply, kMadSize));
    const uint8_t mgmt_class = request[ibpulse::tools::kOffMgmtClass];
    if (opts.verbose) {
      fmt::print(stderr,
                 "pma_responder: class 0x{:02x} method 0x{:02x} attr 0x{:04x} from lid {} -> {}\n",
                 mgmt_class, request[ibpulse::tools::kOffMethod],
                 ibpulse::tools::get_be(&request[ibpulse::tools::kOffAttrId], 2),
                 ntohs(umad_get_mad_addr(in.data())->lid),
                 d == Disposition::kReply
                     ? fmt::format("status 0x{:04x}",
                                   ibpulse::tools::get_be(&reply[ibpulse::tools::kOffStatus], 2))
                     : std::string("ignored"));
    }
    if (d == Disposition::kIgnore) {
      ++stats.ignored;
      continue;
    }
    // Back to the requester's LID and QP (a directed-route SMP: LID 0xffff, the return path
    // is in the MAD). GSI replies carry the well-known QP1 QKey.
    const ib_mad_addr_t* from = umad_get_mad_addr(in.data());
    const bool smi = mgmt_class == ibpulse::tools::kClassSmiLid ||
                     mgmt_class == ibpulse::tools::kClassSmiDirected;
    umad_set_addr(out.data(), ntohs(from->lid), static_cast<int>(ntohl(from->qpn)), from->sl,
                  smi ? 0 : kQp1Qkey);
    const int reply_agent = agent_of_class[mgmt_class];
    if (reply_agent < 0 ||
        umad_send(fd, reply_agent, out.data(), static_cast<int>(kMadSize), 0, 0) < 0) {
      ++stats.send_errors;
      continue;
    }
    ++stats.answered;
  }

  fmt::print(stderr,
             "pma_responder: stopping: {} answered, {} ignored, {} bounced, {} send errors\n",
             stats.answered, stats.ignored, stats.bounced, stats.send_errors);
  // Leave the SM role first: ibsim then stops forwarding to this client. The agents stay
  // registered and the port open until umad2sim's exit handler detaches from ibsim: its
  // receiver thread crashes on a MAD of a class that has no registered agent, so unregistering
  // here would open a window for exactly that.
  clear_issm_bit(ca_name.c_str(), portnum);
  if (!opts.ready_file.empty()) std::remove(opts.ready_file.c_str());
  return 0;
}
