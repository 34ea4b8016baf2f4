// pma_responder: a test PMA for the simulated fabric. ibsim 0.10 does not answer
// PortSamplesControl/Result/ResultExtended or PortExtendedSpeedsCounters; it forwards them to
// the client attached at the target node that flagged itself as SM. This program is that
// client: it answers them as pma_emulation.h documents (values, timing, state-file modes).
//
//   IBSIM_SOCKNAME=<fabric socket>
//   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
//   SIM_HOST=Hca2 SIM_SET_ISSM=1
//   pma_responder [--state-file PATH] [--ready-file PATH] [--ext-speeds-layout rsfec] [-v]
//
// SIM_HOST must not be the node of the fabric's resident opensm (one SM per node; the default
// fabric's opensm is at Switch1, its first node): the responder then exits with status 1.
// SIM_SET_ISSM=1 is the required opt-in, but the responder does not let umad2sim act on it at
// attach time: ibsim forwards MADs (opensm's SMInfo query follows the IsSM trap within
// milliseconds) as soon as the client is an SM, and umad2sim's receiver thread crashes on a
// MAD of a class with no agent yet. It attaches as a plain client, registers its agents, then
// takes the SM role by opening the issm device, as opensm does, and holds it until exit.
// The ready file is written (atomically) once the responder serves and removed on exit.
// SIGTERM/SIGINT/SIGHUP stop it cleanly: it gives up the SM role (clearing the node's IsSM
// capability bit) and umad2sim detaches it from ibsim.
// Started with `ibpulse sim exec --name N --host NODE -- pma_responder ...` (SIM_SET_ISSM=1 in
// the environment), `sim down` stops it; started otherwise, it exits by itself within a second
// or so once the fabric's ibsim is gone.
// Exit status: 0 after a signal or when ibsim is gone, 1 on a runtime failure, 2 on a
// usage/environment error.

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <array>
#include <chrono>
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

void on_signal(int /*signo*/) {
  g_stop = 1;
}

struct Options {
  std::string state_file;
  std::string ready_file;
  bool verbose = false;
  bool rs_fec = false;  // PortExtendedSpeedsCounters in its RS-FEC layout
};

constexpr const char* kUsage =
    "usage: pma_responder [--state-file PATH] [--ready-file PATH] [--ext-speeds-layout "
    "legacy|rsfec] [-v]\n";

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

constexpr int kRecvTimeoutMs = 200;                 // how often the loop looks at the stop flag
constexpr std::chrono::seconds kLivenessPeriod{1};  // how often it checks that ibsim is alive
constexpr int kQp1Qkey = static_cast<int>(0x80010000u);
constexpr uint32_t kCapMaskIsSm = 0x2;  // PortInfo CapabilityMask bit 1

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "pma_responder: {}\n", message);
  fmt::print(stderr, "{}", kUsage);
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
    } else if (arg == "--ext-speeds-layout") {
      const std::string layout = value();
      if (layout != "legacy" && layout != "rsfec") {
        usage_error(fmt::format("--ext-speeds-layout: expected legacy or rsfec, got '{}'", layout));
      }
      o.rs_fec = layout == "rsfec";
    } else if (arg == "-v" || arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      fmt::print("{}", kUsage);
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
               "resident opensm usually is (the responder then refuses to start)\n");
  }
}

// The state file's first word (and, for foreign-until-set, its generation: the second); a
// missing or unreadable file means normal operation.
struct StateFile {
  StateMode mode = StateMode::kNormal;
  std::string generation;
};
StateFile read_state(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return {};
  if (word == "foreign") return {StateMode::kForeign, ""};
  if (word == "clobber") return {StateMode::kClobber, ""};
  if (word == "foreign-until-set") {
    StateFile f{StateMode::kForeignUntilSet, ""};
    in >> f.generation;
    return f;
  }
  return {};
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

// umad2sim sets the client's SM flag (and the port's IsSM capability bit) when the issm device
// is opened and clears both when it is closed. Returns the open descriptor, or -1.
int take_sm_role(const char* ca_name, int portnum) {
  char path[256] = {};
  if (umad_get_issm_path(ca_name, portnum, path, sizeof(path)) < 0) return -1;
  return ::open(path, O_RDWR);
}

struct Attachment {
  int fd = -1;
  std::string ca_name;
  int portnum = 0;
  unsigned lid = 0;
  bool is_switch = false;
  bool sm_present = false;  // IsSM was already set on this port when we attached
  std::array<int, 256> agent_of_class{};
};

// Attaches to ibsim (at SIM_HOST, as a plain client) and registers every agent.
std::optional<Attachment> attach() {
  if (umad_init() < 0) {
    fmt::print(stderr, "pma_responder: umad_init failed\n");
    return std::nullopt;
  }
  Attachment a;
  a.fd = umad_open_port(nullptr, 0);
  if (a.fd < 0) {
    fmt::print(stderr, "pma_responder: umad_open_port failed: {}\n", std::strerror(-a.fd));
    return std::nullopt;
  }
  umad_port_t port{};
  if (umad_get_port(nullptr, 0, &port) < 0) {
    fmt::print(stderr, "pma_responder: umad_get_port failed\n");
    return std::nullopt;
  }
  umad_ca_t ca{};
  if (umad_get_ca(port.ca_name, &ca) == 0) {
    a.is_switch = ca.node_type == 2;
    umad_release_ca(&ca);
  }
  a.ca_name = port.ca_name;
  a.portnum = port.portnum;
  a.lid = port.base_lid;
  a.sm_present = (be32toh(port.capmask) & kCapMaskIsSm) != 0;
  umad_release_port(&port);

  a.agent_of_class.fill(-1);
  for (const auto& c : kClasses) {
    // Receive Get (0x01) and Set (0x02) requests. (umad2sim routes by class only and ignores
    // the mask; a kernel would honour it.)
    long method_mask[16 / sizeof(long)] = {};
    method_mask[0] = (1L << ibpulse::tools::kMethodGet) | (1L << ibpulse::tools::kMethodSet);
    const int agent = umad_register(a.fd, c.mgmt_class, c.version, 0, method_mask);
    if (agent < 0) {
      fmt::print(stderr, "pma_responder: cannot register class 0x{:02x}: {}\n", c.mgmt_class,
                 std::strerror(-agent));
      return std::nullopt;
    }
    a.agent_of_class[c.mgmt_class] = agent;
  }
  return a;
}

// Whether ibsim's control socket (abstract "@<IBSIM_SOCKNAME>:ctl", NUL padding shown as '@')
// is still bound. A responder started outside `ibpulse sim exec` is not stopped by `sim down`:
// this lets it notice the fabric is gone. Unknown (no /proc/net/unix, no IBSIM_SOCKNAME): true.
bool ibsim_alive() {
  const char* sockname = std::getenv("IBSIM_SOCKNAME");
  if (sockname == nullptr || *sockname == '\0') return true;
  std::ifstream in("/proc/net/unix");
  if (!in) return true;
  const std::string needle = fmt::format("@{}:ctl", sockname);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.rfind(' ');
    const std::string_view name =
        std::string_view(line).substr(at == std::string::npos ? 0 : at + 1);
    if (name.substr(0, needle.size()) == needle &&
        name.find_first_not_of('@', needle.size()) == std::string_view::npos) {
      return true;
    }
  }
  return false;
}

struct Stats {
  uint64_t answered = 0;
  uint64_t ignored = 0;
  uint64_t bounced = 0;  // umad status != 0 (e.g. 110: a reply of ours that could not be routed)
  uint64_t send_errors = 0;
  bool ibsim_gone = false;
};

// Answers MADs until a stop signal.
Stats serve(const Attachment& a, const Options& opts) {
  PmaEmulator emulator(a.is_switch, static_cast<unsigned>(a.portnum), opts.rs_fec);
  std::string takeover_generation;  // of the last foreign-until-set state seen
  std::vector<uint8_t> in(umad_size() + kMadSize);
  std::vector<uint8_t> out(umad_size() + kMadSize);
  Stats stats;
  auto next_liveness_check = ibpulse::tools::SteadyClock::now() + kLivenessPeriod;
  while (g_stop == 0) {
    if (ibpulse::tools::SteadyClock::now() >= next_liveness_check) {
      if (!ibsim_alive()) {
        stats.ibsim_gone = true;
        break;
      }
      next_liveness_check = ibpulse::tools::SteadyClock::now() + kLivenessPeriod;
    }
    int length = static_cast<int>(kMadSize);
    if (umad_recv(a.fd, in.data(), &length, kRecvTimeoutMs) < 0) {
      continue;  // timeout, or a spurious wake-up of umad2sim's poll
    }
    if (umad_status(in.data()) != 0) {
      ++stats.bounced;
      continue;
    }
    const auto* request = static_cast<const uint8_t*>(umad_get_mad(in.data()));
    auto* reply = static_cast<uint8_t*>(umad_get_mad(out.data()));
    const StateFile state = read_state(opts.state_file);
    if (state.mode == StateMode::kForeignUntilSet && state.generation != takeover_generation) {
      emulator.forget_takeovers();
      takeover_generation = state.generation;
    }
    const Disposition d = emulator.answer(std::span<const uint8_t, kMadSize>(request, kMadSize),
                                          ibpulse::tools::SteadyClock::now(), state.mode,
                                          std::span<uint8_t, kMadSize>(reply, kMadSize));
    const uint8_t mgmt_class = request[ibpulse::tools::kOffMgmtClass];
    const ib_mad_addr_t* from = umad_get_mad_addr(in.data());
    if (opts.verbose) {
      fmt::print(stderr,
                 "pma_responder: class 0x{:02x} method 0x{:02x} attr 0x{:04x} from lid {} -> {}\n",
                 mgmt_class, request[ibpulse::tools::kOffMethod],
                 ibpulse::tools::get_be(&request[ibpulse::tools::kOffAttrId], 2), ntohs(from->lid),
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
    const bool smi = mgmt_class == ibpulse::tools::kClassSmiLid ||
                     mgmt_class == ibpulse::tools::kClassSmiDirected;
    umad_set_addr(out.data(), ntohs(from->lid), static_cast<int>(ntohl(from->qpn)), from->sl,
                  smi ? 0 : kQp1Qkey);
    const int agent = a.agent_of_class[mgmt_class];
    if (agent < 0 || umad_send(a.fd, agent, out.data(), static_cast<int>(kMadSize), 0, 0) < 0) {
      ++stats.send_errors;
      continue;
    }
    ++stats.answered;
  }
  return stats;
}

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
  sigaction(SIGHUP, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a closed stderr must not kill us before we leave the SM role

  // umad2sim reads SIM_SET_ISSM when it attaches (lazily, on the first umad call): hide it so
  // the SM role is taken only once the agents exist (see the header comment).
  ::unsetenv("SIM_SET_ISSM");
  auto a = attach();
  if (!a) return 1;
  if (a->sm_present) {
    fmt::print(stderr,
               "pma_responder: {} port {} (lid {}) already has an SM (IsSM is set: opensm, "
               "another responder, or a killed one still attached): use another SIM_HOST\n",
               a->ca_name, a->portnum, a->lid);
    return 1;
  }
  const int issm_fd = take_sm_role(a->ca_name.c_str(), a->portnum);
  if (issm_fd < 0) {
    fmt::print(stderr, "pma_responder: cannot open the issm device of {} port {}\n", a->ca_name,
               a->portnum);
    return 1;
  }

  if (!opts.ready_file.empty() &&
      !write_ready_file(opts.ready_file,
                        fmt::format("pid {}\nlid {}\nport {}\nswitch {}\n", getpid(), a->lid,
                                    a->portnum, a->is_switch ? 1 : 0))) {
    fmt::print(stderr, "pma_responder: cannot write the ready file {}\n", opts.ready_file);
    ::close(issm_fd);
    return 1;
  }
  fmt::print(stderr, "pma_responder: serving at {} port {} lid {} ({})\n", a->ca_name, a->portnum,
             a->lid, a->is_switch ? "switch: PortSelect picks the port" : "CA");

  const Stats stats = serve(*a, opts);
  if (stats.ibsim_gone) fmt::print(stderr, "pma_responder: ibsim is gone (fabric down)\n");
  fmt::print(stderr,
             "pma_responder: stopping: {} answered, {} ignored, {} bounced, {} send errors\n",
             stats.answered, stats.ignored, stats.bounced, stats.send_errors);
  // Leave the SM role first: ibsim then stops forwarding to this client. The agents stay
  // registered and the port open until umad2sim's exit handler detaches from ibsim: its
  // receiver thread crashes on a MAD of a class that has no registered agent, so unregistering
  // here would open a window for exactly that.
  ::close(issm_fd);
  if (!opts.ready_file.empty()) std::remove(opts.ready_file.c_str());
  return 0;
}
