#pragma once
// Sends notifications to the trap sinks, on the agent thread, without ever waiting for a sink:
// each sink has its own net-snmp session, served by the agent's select loop like the agent's
// own socket. Traps go out at once. Informs wait in the sink's bounded queue (oldest dropped)
// and go out a few at a time; an inform not acknowledged after the sink's retries goes back to
// the queue, and the sink is tried again after a back-off (1 s, doubling to 10 s) until it
// answers. Private to the SNMP exporter.
//
// An inform's receiver is authoritative: its engineID must be known first. net-snmp would find
// it with a synchronous probe (snmpv3_engineID_probe: timeout x (retries + 1) of a stalled agent
// for a dead receiver), so sessions are opened with SNMP_FLAGS_DONT_PROBE and the probe (an
// unauthenticated, empty GET that the receiver answers with a Report carrying its engineID) is
// sent asynchronously like any request.
//
// Thread safety: everything but the counters belongs to the agent thread; the counters may be
// read from any thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/exporters/snmp/mib_view.h"
#include "ibpulse/exporters/snmp/trap_sink.h"

struct snmp_session;

namespace ibpulse::exporters::snmp::detail {

struct SinkCounters {
  std::atomic<uint64_t> sent{0}, acknowledged{0}, retried{0}, failed{0}, dropped{0};
};

class Notifier {
 public:
  using Clock = std::chrono::steady_clock;
  using Log = std::function<void(int priority, std::string_view message)>;
  using Varbinds = std::shared_ptr<const std::vector<VarBind>>;

  // Any thread (the sinks' counters exist from here on); nothing is opened yet.
  Notifier(const std::vector<TrapSink>& sinks, size_t queue_capacity, Log log);
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  // Agent thread, once net-snmp is initialised: a session per sink. `engine_id`: the agent's
  // ("0x..."), authoritative for v3 traps.
  Status open(const std::string& engine_id);
  // Agent thread: `varbinds` (notification_varbinds()) to every sink.
  void send(const Varbinds& varbinds);
  // Agent thread, every loop: sends what waits and may go now.
  void pump(Clock::time_point now);
  // Agent thread, before net-snmp shuts down.
  void close();

  size_t size() const { return sinks_.size(); }
  const TrapSink& sink(size_t i) const;
  const SinkCounters& counters(size_t i) const;

  struct Sink;  // notifier.cc

 private:
  Log log_;
  std::vector<std::unique_ptr<Sink>> sinks_;
};

}  // namespace ibpulse::exporters::snmp::detail
