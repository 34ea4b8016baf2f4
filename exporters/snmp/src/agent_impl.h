#pragma once
// SnmpAgent's state, shared by the files that implement it: set-up and the agent thread's loop
// (agent.cc), contexts and views (agent_contexts.cc). Private to the SNMP exporter.
//
// Thread safety: the agent thread's, but for the atomics the public accessors read.

#include <array>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "access_config.h"
#include "fast_path.h"
#include "ibpulse/exporters/alerts/event_queue.h"
#include "ibpulse/exporters/snmp/agent.h"
#include "net_snmp.h"
#include "notifier.h"
#include "request_handler.h"
#include "transport.h"

namespace ibpulse::exporters::snmp {

namespace detail {
// The subtrees registered in every context.
std::vector<Oid> served_subtrees();
}  // namespace detail

struct SnmpAgent::Impl {
  AgentOptions options;
  // IB-SMA-MIB notifications passed on, per alerts::kSmaTraps entry (any thread).
  std::array<std::atomic<uint64_t>, std::size(alerts::kSmaTraps)> sma_counts{};
  const converters::SnapshotStore* snapshots = nullptr;
  const alerts::HealthStore* healths = nullptr;  // none: ibpulseLinkHealthTable is empty
  detail::HandlerState state;
  detail::FastPath fast_path;               // master agent only
  std::vector<netsnmp_session*> listening;  // master agent only; net-snmp owns them
  std::unique_ptr<detail::ContextCommunities> communities;
  // Registrations per context name ("" first); net-snmp owns them once registered.
  std::map<std::string, std::vector<netsnmp_handler_registration*>> registered;
  std::shared_ptr<const converters::FabricSnapshot> seen;
  std::shared_ptr<const alerts::HealthSnapshot> seen_health;
  // The view the registrations were last brought in line with (sync_registrations()).
  std::shared_ptr<const MibView> registered_view;
  MibView::Clock::time_point started = MibView::Clock::now();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> views{0};
  std::atomic<size_t> contexts{0};
  uint16_t port = 0;
  std::thread thread;
  std::filesystem::path temporary_dir;  // the state directory when none was given
  std::string engine_hex;               // "0x...", set by init()
  // Notifications: events from any thread to the agent thread, which a pipe wakes.
  std::unique_ptr<alerts::EventQueue> events;
  std::unique_ptr<detail::Notifier> notifier;
  std::array<int, 2> wake = {-1, -1};

  bool link_traps_on() const { return options.link_up_down_traps && !options.trap_sinks.empty(); }

  Status make_wake_pipe();

  void close_wake_pipe();

  // Agent thread: every queued event to every sink, then whatever waits for its turn.
  void deliver();

  SnmpAgent::NotificationStats totals() const;

  // v1/v2c only: net-snmp still wants somewhere to write, but nothing there must survive.
  Status make_temporary_state_dir();

  void remove_temporary_state_dir() const;

  static int log_callback(int /*major*/, int /*minor*/, void* server_arg, void* /*client_arg*/);

  // After init_snmp(), which left net-snmp's boots at 1 (see engine_id.h): its own setter, then
  // the timing cache USM checks incoming messages against.
  static void set_engine_boots(uint32_t boots);

  Status init(const detail::Transport& transport);

  // Before snmp_shutdown(): it would free the sessions behind net-snmp's back, leaving its
  // main_session pointing at freed memory, which a later agent in this process then used.
  void close_listen_sessions();

  bool register_context(const std::string& name);

  void unregister_context(const std::string& name);

  // netsnmp_unregister_handler() hands unregister_mib_context() the registration's own OID and
  // context name, which that frees halfway through and then reads again (valgrind): it gets
  // copies here.
  static void unregister(netsnmp_handler_registration* reg);

  // A new snapshot (or a new health judgement of one, which follows it within a sweep): a new
  // view. No I/O: safe between select() and snmp_read().
  void refresh_view();

  // Contexts registered or dropped as nodes came and went in the view. A subagent registers
  // with the master synchronously, reading the AgentX socket while it waits: called only
  // before select(), never between select() and snmp_read(), whose readable set it would make
  // stale (net-snmp then reads nothing from a stream socket, takes that for the master's
  // disconnect and drops the session, seen under load as a subagent deaf for 15 s).
  void sync_registrations();

  // net-snmp keeps contexts in a list, newest first, and looks the request's context up in it
  // (strcmp) several times per varbind: behind 2,000 node contexts the fabric's walk ran 3x
  // slower (measured). Its entry trades places with the head's; nothing holds the entries
  // themselves, only the subtrees they point to.
  void fabric_context_first() const;

  void sync_node_contexts();

  void loop();
};

}  // namespace ibpulse::exporters::snmp
