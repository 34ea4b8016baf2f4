#pragma once
// ibpulse's subscription to the traps the subnet manager forwards: an InformInfo Set (SA,
// management class 0x03) per trap number, sent to the SM's LID, and the SA Reports that
// follow, each answered (ReportResp) and its Notice decoded (sm_notice.h) for the alerts.
//
// A subnet manager keeps its subscriptions in memory: one that restarts has none, and a new
// master (failover) never had ours. So the subscription is sent again when the local port's
// SM LID changes (umad's port attributes) and, in any case, every `refresh`: the SM updates a
// subscription it already holds in place (opensm does), so renewing costs ten small MADs.
//
// The simulator: ibsim hands an unsolicited MAD (a Report) only to the client that holds the
// SM role at the node it reaches, so a daemon that wants the SM's Reports there is started
// with SIM_SET_ISSM=1 at a node without a subnet manager; and umad2sim's port attributes keep
// the SM LID they had at start (a new LID is found by the refresh's timeouts only once the
// old SM answers again: ibsim has no failover to show).
//
// Thread safety: run() on one thread; stats() from any.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/sm_notice.h"

namespace ibpulse::collector {

struct SmSubscriptionOptions {
  std::string ca;   // empty: the first HCA
  int ca_port = 0;  // 0: the first active port
  // What to subscribe to (kSmaTrapNumbers entries); none: no subscription.
  std::vector<uint16_t> traps{std::begin(kSmaTrapNumbers), std::end(kSmaTrapNumbers)};
  // SM_Key of the Sets' SA header: the security traps (256-259) are for trusted subscribers,
  // those that know the SA's key (opensm's sa_key; its default is 1).
  uint64_t sa_key = 1;
  std::chrono::milliseconds refresh{std::chrono::seconds(30)};
  std::chrono::milliseconds timeout{std::chrono::seconds(1)};  // per InformInfo Set
};

struct SmSubscriptionStats {
  uint64_t subscribed = 0;      // InformInfo Sets the SA acknowledged
  uint64_t failures = 0;        // Sets refused, undelivered or unanswered
  uint64_t reports = 0;         // Reports received (each answered)
  uint64_t untranslatable = 0;  // Reports whose Notice IB-SMA-MIB cannot translate
};

// What run() tells its caller (on run()'s thread); each may be empty.
struct SmSubscriptionEvents {
  std::function<void(SmNotice)> notice;  // a Notice IB-SMA-MIB translates
  // A subscription round: the SM's LID and why ("start", "sm_changed"; refreshes are quiet).
  std::function<void(uint16_t sm_lid, std::string_view why)> round;
  std::function<void(uint16_t trap)> subscribed;                      // the SA acknowledged a Set
  std::function<void(uint16_t trap, const std::string& why)> failed;  // a Set that did not take
  std::function<void(uint16_t from_lid, const std::string& why)> untranslatable;
};

class SmSubscription {
 public:
  virtual ~SmSubscription() = default;

  // Opens the HCA port and registers the SA agent (with Report among its methods).
  static Result<std::unique_ptr<SmSubscription>> open(const SmSubscriptionOptions& options);

  // Subscribes, renews and hands each translatable Notice on until `stop`.
  virtual void run(const std::atomic<bool>& stop, const SmSubscriptionEvents& events) = 0;
  virtual SmSubscriptionStats stats() const = 0;
};

}  // namespace ibpulse::collector
