#pragma once
// The embedded SNMP master agent (net-snmp, kept out of this header: private to
// ibpulse::exporters_snmp). It serves the MibView of the latest snapshot on its own UDP address:
// the fabric in the default context and, when on, each node in a context named by its GUID
// (`0x` + 16 hex digits; SNMPv3 `-n CONTEXT`, or v2c `COMMUNITY@CONTEXT` for every configured
// community). Nothing is writable. v1/v2c only when a community is configured; SNMPv3 users
// need authPriv, and come only from the options: nothing of net-snmp's own persistence is kept.
// The engineID and engine boots persist in `state_dir`.
//
// Thread safety: net-snmp is not thread-safe, so the agent runs every net-snmp call on its own
// thread; stats() may be called from any thread. One agent per process (net-snmp's state is
// global).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/snmp/mib_view.h"
#include "ibpulse/exporters/snmp/status_scalars.h"

namespace ibpulse::exporters::snmp {

// Debian's port 161 needs CAP_NET_BIND_SERVICE; the default stays unprivileged on loopback.
inline constexpr std::string_view kDefaultListen = "127.0.0.1:1161";

struct SnmpUser {
  std::string name;
  std::string auth_protocol = "SHA-256";  // SHA, SHA-224, SHA-256, SHA-384, SHA-512, MD5
  std::string auth_password;              // at least 8 characters (RFC 3414)
  std::string priv_protocol = "AES";      // AES (128), DES
  std::string priv_password;              // empty: the auth password
};

struct AgentOptions {
  std::string listen = std::string(kDefaultListen);  // host:port; port 0 picks a free one
  std::vector<std::string> communities;              // read-only v1/v2c; none: v1/v2c off
  // Where v1/v2c requests may come from: "default" (anywhere) or address[/prefix] entries.
  std::vector<std::string> sources = {"default"};
  std::vector<SnmpUser> users;
  bool node_contexts = true;
  // AgentX subagent mode: the host's snmpd (the master, at this AgentX socket, e.g.
  // "unix:/var/agentx/master" or "tcp:127.0.0.1:705") answers managers; listen, communities,
  // sources and users are then its business. The fabric goes into the named context, never the
  // default one, where it would shadow (or be shadowed by) the host's own ifTable.
  std::string agentx;
  std::string agentx_context = "ib";
  // Where the engineID and engine boots persist (files engine-id, engine-boots); must exist
  // and be writable. Needed only for SNMPv3 users: empty, the agent uses a temporary directory that
  // it removes at stop.
  std::string state_dir;
  SystemInfo system;
  // Runs once on the agent thread after net-snmp is set up and before the first request: for
  // registrations of the caller's own (the benchmark's reference table). Usually empty.
  std::function<void()> on_agent_thread;
  // IBPULSE-MIB's collector status, read by the agent thread every 100 ms; none: not served.
  std::function<CollectorStatus()> status;
  // net-snmp's own messages (priority as syslog's: 3 error, 4 warning, ...).
  std::function<void(int priority, std::string_view message)> log;
};

class SnmpAgent {
 public:
  struct Stats {
    uint64_t views = 0;               // MibViews built (one per new snapshot a request saw)
    uint64_t requests = 0;            // varbinds answered
    size_t contexts = 0;              // node contexts registered
    uint64_t fast_path_requests = 0;  // requests answered by the fast path (fast_path.h)
  };

  // Binds, registers and starts answering; errors like "cannot listen on 127.0.0.1:1161:
  // address in use" or "SNMPv3 user 'x': ...".
  static Result<std::unique_ptr<SnmpAgent>> start(AgentOptions options,
                                                  const converters::SnapshotStore* snapshots);
  ~SnmpAgent();  // stops answering and saves net-snmp's persistent state
  SnmpAgent(const SnmpAgent&) = delete;
  SnmpAgent& operator=(const SnmpAgent&) = delete;

  uint16_t port() const;  // 0 in AgentX mode
  Stats stats() const;

  // The master agent answers the fabric's tables on a fast path, net-snmp's own request
  // processing the rest; off, net-snmp processes everything. The answers are the same (tests
  // compare them); the switch is for those comparisons and for benchmarks. On at start.
  void set_fast_path(bool on);

  struct Impl;

 private:
  explicit SnmpAgent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The checks start() makes on options before it touches net-snmp: clear errors for bad users,
// communities and addresses.
Status validate(const AgentOptions& options);

}  // namespace ibpulse::exporters::snmp
