#include "ibpulse/exporters/snmp/agent.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/select.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "access_config.h"
#include "agent_impl.h"
#include "agent_testing.h"
#include "engine_id.h"
#include "fast_path.h"
#include "ibpulse/base/thread_name.h"
#include "ibpulse/exporters/alerts/event_queue.h"
#include "listen_sessions.h"
#include "net_snmp.h"
#include "notification.h"
#include "notifier.h"
#include "request_handler.h"
#include "transport.h"

namespace ibpulse::exporters::snmp {
namespace {

constexpr const char* kAppName = "ibpulse";

// The agent whose log callback runs. Not passed as the callback's client argument: net-snmp's
// snmp_shutdown() frees client arguments it still holds (clear_callback).
std::atomic<SnmpAgent::Impl*> g_logging_agent{nullptr};

}  // namespace

Status SnmpAgent::Impl::make_wake_pipe() {
  if (pipe2(wake.data(), O_NONBLOCK | O_CLOEXEC) != 0)
    return Err("cannot create the SNMP agent's wake-up pipe: {}", std::strerror(errno));
  return Ok{};
}

void SnmpAgent::Impl::close_wake_pipe() {
  for (int& fd : wake) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

// NOLINTNEXTLINE(readability-make-member-function-const): drains the queue and notifier it owns
void SnmpAgent::Impl::deliver() {
  for (const alerts::AlertEvent& event : events->take_all()) {
    const auto ticks =
        std::chrono::duration_cast<std::chrono::milliseconds>(MibView::Clock::now() - started)
            .count() /
        10;
    notifier->send(std::make_shared<const std::vector<VarBind>>(
        detail::notification_varbinds(event, static_cast<uint64_t>(ticks))));
  }
  notifier->pump(detail::Notifier::Clock::now());
}

SnmpAgent::NotificationStats SnmpAgent::Impl::totals() const {
  SnmpAgent::NotificationStats t;
  for (size_t i = 0; i < notifier->size(); ++i) {
    const detail::SinkCounters& c = notifier->counters(i);
    t.sent += c.sent.load();
    t.acknowledged += c.acknowledged.load();
    t.retried += c.retried.load();
    t.failed += c.failed.load();
    t.dropped += c.dropped.load();
  }
  t.dropped += events->dropped();
  return t;
}

Status SnmpAgent::Impl::make_temporary_state_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ibpulse-snmp-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    return Err("cannot create a temporary SNMP state directory: {}", std::strerror(errno));
  temporary_dir = pattern;
  options.state_dir = pattern;
  return Ok{};
}

void SnmpAgent::Impl::remove_temporary_state_dir() const {
  std::error_code ignored;
  if (!temporary_dir.empty()) std::filesystem::remove_all(temporary_dir, ignored);
}

int SnmpAgent::Impl::log_callback(int /*major*/, int /*minor*/, void* server_arg,
                                  void* /*client_arg*/) {
  Impl* self = g_logging_agent.load();
  if (self == nullptr) return 0;
  const auto* message = static_cast<const snmp_log_message*>(server_arg);
  if (message == nullptr || message->msg == nullptr) return 0;
  std::string_view text = message->msg;
  while (!text.empty() && text.back() == '\n')
    text.remove_suffix(1);
  // Said by net-snmp with advice for snmpd users; the daemon says it in its own words.
  if (text.find("no access control information configured") != std::string_view::npos) return 0;
  // net-snmp 5.9 cannot read back the oldEngineID it persisted (an off-by-one); the engineID
  // comes from our own file (engine_id.h), so the complaint says nothing.
  if (text.starts_with("buffer too small to read octet string")) return 0;
  // AgentX 263 is duplicateRegistration: net-snmp registers our subtrees once more when the
  // session to the master opens, after we registered them; the first registration stands.
  if (text.starts_with("registering pdu failed: 263")) return 0;
  if (self->options.log && message->priority <= LOG_WARNING)
    self->options.log(message->priority, text);
  return 0;
}

void SnmpAgent::Impl::set_engine_boots(uint32_t boots) {
  std::string previous = std::to_string(boots - 1);
  engineBoots_conf("engineBoots", previous.data());  // sets previous + 1
  std::array<u_char, 64> id{};
  const size_t length = snmpv3_get_engineID(id.data(), id.size());
  set_enginetime(id.data(), static_cast<u_int>(length), boots,
                 static_cast<u_int>(snmpv3_local_snmpEngineTime()), TRUE);
}

Status SnmpAgent::Impl::init(const detail::Transport& transport) {
  snmp_disable_log();
  snmp_enable_calllog();
  g_logging_agent.store(this);
  snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING, &Impl::log_callback,
                         nullptr);
  const bool subagent = !options.agentx.empty();
  netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, subagent ? 1 : 0);
  // net-snmp logs "Connection from UDP: [address]:port" for every request it lets through
  // TCP wrappers: a formatted message per packet (a tenth of the agent's time on a walk,
  // measured), which our log drops anyway. Refusals are still logged.
  netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_DONT_LOG_TCPWRAPPERS_CONNECTS,
                         1);
  if (subagent) {
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
                          transport.spec().c_str());
    // Reconnect soon after the master restarts (snmpd drops a subagent's subtrees meanwhile).
    netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 5);
    state.fabric_context = options.agentx_context;
  } else {
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
                          transport.spec().c_str());
  }
  // Our own directory for everything: no /etc/snmp file changes what the agent does.
  netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_PERSISTENT_DIR,
                        options.state_dir.c_str());
  netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_CONFIGURATION_DIR,
                        options.state_dir.c_str());
  // Nothing of net-snmp's own persistence: the users it would store (with their keys) would
  // outlive a changed password or a user removed from the config, and the engineID and boots
  // it would store do not survive reading back in 5.9 (engine_id.h keeps ours). An old
  // file may still hold keys: it goes.
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
  std::error_code ignored;
  std::filesystem::remove(std::filesystem::path(options.state_dir) / "ibpulse.conf", ignored);
  // The agent needs no MIB files (it answers by OID): load none, and say nothing about the
  // IETF modules Debian does not ship.
  std::string no_mibs = "mibs :";
  netsnmp_config_remember(no_mibs.data());
  Result<std::string> engine_id = detail::load_or_create_engine_id(options.state_dir);
  if (!engine_id.ok()) return Error{engine_id.error()};
  engine_hex = *engine_id;
  std::string exact_id = "exactEngineID " + *engine_id;
  netsnmp_config_remember(exact_id.data());
  // No SMUX: init_agent() would otherwise listen on TCP port 199 (on every address, when it
  // may bind it: as root) for SMUX peers ibpulse never serves.
  static char no_smux[] = "-smux";
  add_to_init_list(no_smux);
  init_agent(kAppName);
  init_vacm_vars();
  if (!subagent) {  // the master serves its own engine's objects
    init_snmpEngine();
    init_snmpMPDStats();
    init_usmStats();
  }
  // A subagent has no access control of its own: the master's applies.
  for (const std::string& line :
       subagent ? std::vector<std::string>() : detail::access_lines(options)) {
    std::string copy = line;
    netsnmp_config_remember(copy.data());
  }
  init_snmp(kAppName);
  if (!subagent) {
    Result<uint32_t> boots = detail::next_engine_boots(options.state_dir, *engine_id);
    if (!boots.ok()) return Error{boots.error()};
    set_engine_boots(*boots);
    auto opened = detail::open_listen_sessions(transport, options.listen);
    if (!opened.ok()) return Error{opened.error()};
    listening = std::move(*opened);
    port = detail::main_session_port();
    fast_path.state = &state;
    fast_path.subtrees = detail::served_subtrees();
    for (netsnmp_session* session : listening)
      detail::install_fast_path(session, &fast_path);
  }
  communities = std::make_unique<detail::ContextCommunities>(options);
  if (Status s = notifier->open(*engine_id); !s.ok()) return s;
  // The fabric's own registrations wait for the first snapshot (sync_registrations()), after
  // the nodes'.
  if (options.on_agent_thread) options.on_agent_thread();
  return Ok{};
}

void SnmpAgent::Impl::close_listen_sessions() {
  shutdown_master_agent();
  listening.clear();
}

void SnmpAgent::Impl::loop() {
  while (!stop.load()) {
    refresh_view();
    sync_registrations();
    if (options.status) state.status = options.status();
    const SnmpAgent::NotificationStats sent = totals();
    state.alerts = {state.status.active_alerts, sent.sent, sent.dropped,
                    state.status.notifications_suppressed};
    int fds = 0;
    int block = 0;
    fd_set readable;
    FD_ZERO(&readable);
    constexpr timeval kMostWait{0, 100'000};  // wake at least every 100 ms, for stop
    timeval timeout = kMostWait;
    snmp_select_info(&fds, &readable, &timeout, &block);
    // net-snmp may move the timeout to its next alarm, seconds away: never past ours.
    if (block != 0 || timercmp(&timeout, &kMostWait, >)) timeout = kMostWait;
    FD_SET(wake[0], &readable);  // notify()
    fds = std::max(fds, wake[0] + 1);
    const int n = select(fds, &readable, nullptr, nullptr, &timeout);
    if (n > 0 && FD_ISSET(wake[0], &readable)) {
      std::array<char, 64> drain{};
      while (read(wake[0], drain.data(), drain.size()) > 0) {
      }
      FD_CLR(wake[0], &readable);
    }
    if (n > 0) {
      // The view of the snapshot and health as they are now, not as they were when this turn
      // began: a request must not be answered from a judgement /metrics already replaced.
      refresh_view();
      snmp_read(&readable);
    }
    // Every time, not only when nothing arrived: a busy agent must still time out (and
    // resend) the requests it sent itself (informs).
    snmp_timeout();
    deliver();
    run_alarms();
    netsnmp_check_outstanding_agent_requests();
  }
  for (auto it = registered.begin(); it != registered.end();)
    unregister_context((it++)->first);
  communities.reset();
  for (netsnmp_session* session : listening)
    detail::remove_fast_path(session);
  notifier->close();
  close_listen_sessions();
  snmp_shutdown(kAppName);
  shutdown_agent();
}

Result<std::unique_ptr<SnmpAgent>> SnmpAgent::start(AgentOptions options,
                                                    const converters::SnapshotStore* snapshots,
                                                    const alerts::HealthStore* healths) {
  if (Status valid = validate(options); !valid.ok()) return Error{valid.error()};
  Result<detail::Transport> transport =
      options.agentx.empty()
          ? detail::parse_transport(options.listen, detail::TransportUse::kListen,
                                    "SNMP listen address")
          : detail::parse_transport(options.agentx, detail::TransportUse::kAgentX, "AgentX master");
  if (!transport.ok()) return Error{transport.error()};
  static std::atomic<bool> running{false};
  if (running.exchange(true)) return Err("an SNMP agent already runs in this process");

  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->snapshots = snapshots;
  impl->healths = healths;
  impl->events = std::make_unique<alerts::EventQueue>(impl->options.notification_queue);
  impl->notifier = std::make_unique<detail::Notifier>(
      impl->options.trap_sinks, impl->options.notification_queue, impl->options.log);
  if (Status s = impl->make_wake_pipe(); !s.ok()) {
    running.store(false);
    return Error{s.error()};
  }
  if (impl->options.state_dir.empty()) {
    if (Status s = impl->make_temporary_state_dir(); !s.ok()) {
      running.store(false);
      impl->close_wake_pipe();
      return Error{s.error()};
    }
  }
  std::promise<Status> started;
  auto result = started.get_future();
  Impl* self = impl.get();
  impl->thread = std::thread([self, spec = *transport, &started] {
    name_this_thread("ibp-snmp");
    Status status = self->init(spec);
    const bool ok = status.ok();
    started.set_value(std::move(status));
    if (ok) {
      self->loop();
    } else {
      self->close_listen_sessions();
      snmp_shutdown(kAppName);
    }
    g_logging_agent.store(nullptr);
    running.store(false);
  });
  Status status = result.get();
  if (!status.ok()) {
    impl->thread.join();
    impl->remove_temporary_state_dir();
    impl->close_wake_pipe();
    return Error{status.error()};
  }
  return std::unique_ptr<SnmpAgent>(new SnmpAgent(std::move(impl)));
}

SnmpAgent::SnmpAgent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SnmpAgent::~SnmpAgent() {
  impl_->stop.store(true);
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->remove_temporary_state_dir();
  impl_->close_wake_pipe();
}

uint16_t SnmpAgent::port() const {
  return impl_->port;
}

SnmpAgent::Stats SnmpAgent::stats() const {
  return Stats{impl_->views.load(), impl_->state.varbinds.load(), impl_->contexts.load(),
               impl_->fast_path.answered.load()};
}

std::string SnmpAgent::engine_id() const {
  return impl_->engine_hex;
}

void SnmpAgent::notify(exporters::alerts::AlertEvent event) {
  const bool link =
      event.kind == alerts::EventKind::kLinkDown || event.kind == alerts::EventKind::kLinkUp;
  if (event.kind == alerts::EventKind::kSma && !count_sma(event.sma_trap)) return;
  if (impl_->options.trap_sinks.empty() || (link && !impl_->options.link_up_down_traps)) return;
  impl_->events->push(std::move(event));
  const char byte = 1;
  [[maybe_unused]] const ssize_t ignored = write(impl_->wake[1], &byte, 1);  // full: awake anyway
}

bool SnmpAgent::count_sma(uint16_t trap) {
  const auto& on = impl_->options.sma_notifications;
  if (!std::binary_search(on.begin(), on.end(), trap)) return false;
  const auto* at = std::find(std::begin(alerts::kSmaTraps), std::end(alerts::kSmaTraps), trap);
  if (at == std::end(alerts::kSmaTraps)) return false;
  ++impl_->sma_counts[static_cast<size_t>(at - std::begin(alerts::kSmaTraps))];
  return true;
}

std::vector<std::pair<uint16_t, uint64_t>> SnmpAgent::sma_notification_counts() const {
  std::vector<std::pair<uint16_t, uint64_t>> out;
  for (size_t i = 0; i < std::size(alerts::kSmaTraps); ++i)
    out.emplace_back(alerts::kSmaTraps[i], impl_->sma_counts[i].load());
  return out;
}

std::vector<SnmpAgent::SinkStats> SnmpAgent::notification_stats() const {
  std::vector<SinkStats> out;
  for (size_t i = 0; i < impl_->notifier->size(); ++i) {
    const detail::SinkCounters& c = impl_->notifier->counters(i);
    out.push_back({impl_->notifier->sink(i).address,
                   impl_->notifier->sink(i).kind,
                   {c.sent.load(), c.acknowledged.load(), c.retried.load(), c.failed.load(),
                    c.dropped.load()}});
  }
  return out;
}

SnmpAgent::NotificationStats SnmpAgent::notification_totals() const {
  return impl_->totals();
}

void SnmpAgentTesting::set_fast_path(SnmpAgent& agent, bool on) {
  agent.impl_->fast_path.enabled.store(on);
}

}  // namespace ibpulse::exporters::snmp
