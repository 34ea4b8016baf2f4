#pragma once
// The embedded SNMP master agent (net-snmp, kept out of this header: private to
// ibpulse::exporters_snmp). It serves the MibView of the latest snapshot on its own UDP address:
// the fabric in the default context and, when on, each node in a context named by its GUID
// (`0x` + 16 hex digits; SNMPv3 `-n CONTEXT`, or v2c `COMMUNITY@CONTEXT` for every configured
// community). Nothing is writable. v1/v2c only when a community is configured; SNMPv3 users
// need authPriv, and come only from the options: nothing of net-snmp's own persistence is kept.
// The engineID and engine boots persist in `state_dir`.
//
// Notifications: notify() hands an alert event to the agent thread (a bounded queue, oldest
// dropped), which sends it to every trap sink (trap_sink.h) without ever waiting for one: a dead
// or slow sink delays neither requests nor the other sinks.
//
// Thread safety: net-snmp is not thread-safe, so the agent runs every net-snmp call on its own
// thread; stats(), notify() and notification_stats() may be called from any thread. One agent
// per process (net-snmp's state is global).

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/event.h"
#include "ibpulse/exporters/snmp/mib_view.h"
#include "ibpulse/exporters/snmp/snmp_user.h"
#include "ibpulse/exporters/snmp/status_scalars.h"
#include "ibpulse/exporters/snmp/trap_sink.h"

namespace ibpulse::exporters::snmp {

// Debian's port 161 needs CAP_NET_BIND_SERVICE; the default stays unprivileged on loopback.
inline constexpr std::string_view kDefaultListen = "127.0.0.1:1161";

struct AgentOptions {
  // HOST:PORT, [IPV6]:PORT or net-snmp's udp:/udp6:/tcp:/tcp6: forms; port 0 picks a free one
  std::string listen = std::string(kDefaultListen);
  std::vector<std::string> communities;  // read-only v1/v2c; none: v1/v2c off
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
  // Notification receivers (master agent only). Sinks are opened at start: a host name is
  // resolved then.
  std::vector<TrapSink> trap_sinks;
  // IF-MIB linkDown/linkUp for kLinkDown/kLinkUp events; ifLinkUpDownTrapEnable reads
  // enabled(1) when this is on and there is a sink.
  bool link_up_down_traps = true;
  // The IB-SMA-MIB notifications sent (kSma events), by InfiniBand trap number, sorted.
  std::vector<uint16_t> sma_notifications = {std::begin(alerts::kSmaTraps),
                                             std::end(alerts::kSmaTraps)};
  // notify()'s queue to the agent thread, and each sink's queue of notifications not yet sent
  // (or informs not yet acknowledged): the oldest are dropped beyond this.
  size_t notification_queue = 1000;
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
  // `healths`: the link health ibpulseLinkHealthTable serves; none: that table is empty.
  static Result<std::unique_ptr<SnmpAgent>> start(AgentOptions options,
                                                  const converters::SnapshotStore* snapshots,
                                                  const alerts::HealthStore* healths = nullptr);
  ~SnmpAgent();  // stops answering and saves net-snmp's persistent state
  SnmpAgent(const SnmpAgent&) = delete;
  SnmpAgent& operator=(const SnmpAgent&) = delete;

  uint16_t port() const;  // 0 in AgentX mode
  Stats stats() const;

  // The engineID ("0x..." hex): a v3-trap sink's receiver keys its user by it.
  std::string engine_id() const;

  // Queues `event` for the sinks (dropping the oldest queued event when full). Events for link
  // changes are ignored unless link_up_down_traps is on.
  void notify(exporters::alerts::AlertEvent event);

  struct NotificationStats {
    uint64_t sent = 0;          // notifications sent (an inform counts once, however often sent)
    uint64_t acknowledged = 0;  // informs the receiver acknowledged
    uint64_t retried = 0;       // informs sent again after a round went unacknowledged
    uint64_t failed = 0;        // send errors, unacknowledged inform rounds, failed discoveries
    uint64_t dropped = 0;       // dropped from a full queue, never sent or never acknowledged
  };
  struct SinkStats {
    std::string address;
    TrapSink::Kind kind = TrapSink::Kind::kV2cTrap;
    NotificationStats stats;
  };
  // Per sink, in the order of AgentOptions::trap_sinks.
  std::vector<SinkStats> notification_stats() const;
  // Summed over the sinks; `dropped` also counts events dropped from notify()'s queue.
  NotificationStats notification_totals() const;
  // IB-SMA-MIB notifications handed to the sinks, per trap number (alerts::kSmaTraps order);
  // those turned off (sma_notifications) are not counted.
  std::vector<std::pair<uint16_t, uint64_t>> sma_notification_counts() const;

  struct Impl;

 private:
  friend struct SnmpAgentTesting;  // tests' and benchmarks' switches (src/agent_testing.h)
  explicit SnmpAgent(std::unique_ptr<Impl> impl);
  // Whether an SMA trap's notification is on; counts it when it is.
  bool count_sma(uint16_t trap);
  std::unique_ptr<Impl> impl_;
};

// The checks start() makes on options before it touches net-snmp: clear errors for bad users,
// communities and addresses.
Status validate(const AgentOptions& options);

}  // namespace ibpulse::exporters::snmp
