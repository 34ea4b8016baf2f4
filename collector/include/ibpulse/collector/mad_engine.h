#pragma once
// Asynchronous PMA GET/SET over libibumad: a window of MADs in flight, per-node limits so one
// slow switch cannot take the whole window, our own timers (umad2sim never times a MAD out),
// retries with a doubling timeout, TIDs matched on their low 32 bits (the kernel and umad2sim
// own the upper 32), the MAD status checked, and counters for every outcome.
//
// Thread safety: a MadEngine belongs to one I/O thread; no method may be called concurrently.

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse::collector {

inline constexpr size_t kMadDataSize = 192;  // attribute data of a GMP (MAD bytes 64..255)

enum class MadMethod : uint8_t { kGet = 0x01, kSet = 0x02 };

// The management classes the engine speaks: the PMA's, and LID-routed SMPs (PortInfo).
enum class MadClass : uint8_t { kPerformance = 0x04, kSubnetLid = 0x01 };

struct MadRequest {
  uint16_t lid = 0;
  uint32_t node = 0;  // the caller's node index: requests to one node share its limit
  MadClass mgmt_class = MadClass::kPerformance;
  MadMethod method = MadMethod::kGet;
  uint16_t attribute = 0;
  uint64_t m_key = 0;  // SMPs only
  uint32_t modifier = 0;
  std::array<uint8_t, kMadDataSize> data{};  // PortSelect etc. for GET, the values for SET
  uint64_t cookie = 0;                       // handed back in the completion
};

enum class MadFailure : uint8_t {
  kNone,
  kTimeout,      // no answer after every retry
  kUnreachable,  // the request came back undelivered (umad status), every retry
  kStatus,       // the agent answered with an error status (e.g. unsupported attribute)
  kRedirect,     // the agent asks to be reached elsewhere (ClassPortInfo redirect)
  kSendError,    // umad_send failed
};
std::string_view to_string(MadFailure failure);
// The reasons a MAD fails for, in the order statistics and metrics list them (kNone is none).
inline constexpr std::array<MadFailure, 5> kMadFailureReasons = {
    MadFailure::kTimeout, MadFailure::kUnreachable, MadFailure::kStatus, MadFailure::kRedirect,
    MadFailure::kSendError};

struct MadCompletion {
  uint64_t cookie = 0;
  MadFailure failure = MadFailure::kNone;
  uint16_t mad_status = 0;
  unsigned attempts = 0;
  std::chrono::steady_clock::time_point received;
  std::span<const uint8_t> data;  // attribute data; valid during the callback only
};

struct MadEngineOptions {
  unsigned window = 256;                   // MADs in flight; the simulator needs <= 64
  unsigned per_node = 16;                  // MADs in flight to one node
  std::chrono::milliseconds timeout{200};  // first attempt; each retry doubles it
  unsigned retries = 3;
};

struct MadStats {
  uint64_t sent = 0;
  uint64_t answered = 0;
  uint64_t retried = 0;
  uint64_t attempt_timeouts = 0;
  uint64_t attempt_unreachable = 0;
  uint64_t stale_replies = 0;  // answers to attempts already given up on
  // Replies shorter than a MAD, under one of our TIDs for another attribute, or requests
  // rather than responses: dropped.
  uint64_t malformed_replies = 0;
  // MADs that failed after every retry, by reason (indexed by MadFailure; kNone stays 0).
  std::array<uint64_t, kMadFailureReasons.size() + 1> failed{};

  uint64_t& failed_for(MadFailure f) { return failed[static_cast<size_t>(f)]; }
  uint64_t failed_for(MadFailure f) const { return failed[static_cast<size_t>(f)]; }
  uint64_t failed_total() const {
    uint64_t n = 0;
    for (const uint64_t v : failed)
      n += v;
    return n;
  }
};

using CompletionFn = std::function<void(const MadCompletion&)>;

class MadEngine {
 public:
  virtual ~MadEngine() = default;

  // Opens the local HCA port (`ca` empty: the first; `port` 0: the first active) and
  // registers a PMA agent (management class 0x04).
  static Result<std::unique_ptr<MadEngine>> open(const std::string& ca, int port,
                                                 const MadEngineOptions& options);

  // SMPs need the subnet management class, which umad2sim lets a process register once:
  // discovery (libibnetdisc) registers it on its own port, so the engine holds it only
  // between discoveries. Call with false, and drain, before discovering. Fails (and SMPs
  // fail with kSendError) when the class cannot be registered.
  virtual Status enable_smp(bool enabled) = 0;
  virtual bool smp_enabled() const = 0;

  // A request of a class that is not enabled fails with kSendError when its turn comes.
  virtual void submit(const MadRequest& request) = 0;

  // Sends what the window allows and processes answers and expired timers for up to
  // `max_wait`, returning early once nothing is queued or in flight. Returns completions.
  virtual size_t poll(std::chrono::milliseconds max_wait, const CompletionFn& on_done) = 0;

  virtual bool idle() const = 0;
  // Requests submitted and not sent yet (waiting for the window or their node's limit).
  virtual size_t queued() const = 0;
  virtual const MadStats& stats() const = 0;
  virtual const MadEngineOptions& options() const = 0;
};

// Runs the engine until every submitted request completed.
void drain(MadEngine& engine, const CompletionFn& on_done);

}  // namespace ibpulse::collector
