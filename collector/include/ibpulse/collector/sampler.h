#pragma once
// PortSamplesControl / PortSamplesResult(Extended): program a sample with a fresh tag, poll
// until it is done, read it, and detect a tag another manager wrote over ours. A port whose
// sampling another manager is running (status not done, or a tag not ours) is left alone
// unless the caller takes over. This is how per-VL traffic is read (the XmitDataVLN,
// RcvDataVLN, XmitPktVLN and RcvPktVLN selects).
//
// Thread safety: runs on the engine's thread (it drains the engine between steps).

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/mad_engine.h"

namespace ibpulse::collector {

// PortSamplesControl CounterSelect codes: 0x0001-0x0005 are mandatory; the optional per-VL
// ones (0x4001-0x4004) carry the VL in bits 8-11 and need their OptionMask bit (option_bit()).
namespace select {
inline constexpr uint16_t kXmitData = 0x0001, kRcvData = 0x0002, kXmitPkts = 0x0003,
                          kRcvPkts = 0x0004, kXmitWait = 0x0005;
inline constexpr uint16_t kXmitDataVL = 0x4001, kRcvDataVL = 0x4002, kXmitPktVL = 0x4003,
                          kRcvPktVL = 0x4004;
constexpr uint16_t per_vl(uint16_t code, unsigned vl) {
  return static_cast<uint16_t>(code | (vl & 0xF) << 8);
}
}  // namespace select

// "XmitDataVL3", "PortXmitData"...: the name of a select code; "0x...." when unknown.
std::string select_name(uint16_t code);
// The inverse of select_name, also accepting a number (0x4001).
std::optional<uint16_t> parse_select(std::string_view name);
// What a sample measures unless told otherwise (sampling.counters, `ibpulse sample`): the data
// sent and received, in total and on VLs 0-3, the VLs most fabrics use.
const std::vector<std::string>& default_sample_counters();
// The OptionMask bit a per-VL select needs (bits 2-5), or -1 for a mandatory one.
int option_bit(uint16_t code);

struct SampleRequest {
  uint16_t lid = 0;
  uint8_t port = 0;
  std::vector<uint16_t> selects;  // at most 15
  uint32_t interval = 1000000;    // in the port's ticks
  uint32_t start = 0;             // ticks before the sample starts
  bool take_over = false;         // program the port even if another manager is sampling
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds poll_every{20};
};

enum class SampleOutcome { kDone, kBusy, kClobbered, kUnsupported, kFailed, kTimedOut };
std::string_view to_string(SampleOutcome outcome);

struct SampleResult {
  SampleOutcome outcome = SampleOutcome::kFailed;
  std::string detail;  // why, for anything but kDone
  uint16_t tag = 0;    // ours
  uint8_t tick = 0;    // the port's tick (device-defined period)
  uint32_t interval = 0;
  bool extended = false;           // read from PortSamplesResultExtended (64-bit)
  std::vector<uint64_t> counters;  // one per select, in request order
  // From our Set's answer until the port was seen done: an upper bound of the time the counts
  // cover (the tick's period is device-defined, so wall-clock time is what we know).
  std::chrono::steady_clock::duration ran_for{};
};

// One sample of one port as a state machine over MADs, so it can run inside the poller's
// pipeline as well as on its own: next() gives the MAD to send (none while the sample runs
// on the port and it is not yet time to poll it), on_reply() takes its answer.
class SampleSession {
 public:
  using Clock = std::chrono::steady_clock;

  SampleSession(SampleRequest request, Clock::time_point now);

  std::optional<MadRequest> next(Clock::time_point now);
  void on_reply(const MadCompletion& reply, Clock::time_point now);

  bool finished() const { return finished_; }
  // When next() will have something to send again (polling waits between reads).
  Clock::time_point wake_at() const { return wake_at_; }
  const SampleResult& result() const { return result_; }
  const SampleRequest& request() const { return request_; }

 private:
  enum class Step { kGetControl, kSetControl, kPollResult, kReadExtended };
  void finish(SampleOutcome outcome, std::string detail);

  SampleRequest request_;
  Step step_ = Step::kGetControl;
  bool waiting_ = false;  // a MAD is out
  bool finished_ = false;
  Clock::time_point deadline_;
  Clock::time_point wake_at_;
  std::array<uint8_t, kMadDataSize> polled_{};  // the last PortSamplesResult, for 32-bit fallback
  Clock::time_point set_answered_{};            // when our Set was answered: the sample began
  SampleResult result_;
};

// Runs one sample on one port, waiting for it. Fails only on a bad request; everything the
// port does is in the outcome.
Result<SampleResult> run_sample(MadEngine& engine, const SampleRequest& request);

}  // namespace ibpulse::collector
