#pragma once
// The PMA behaviour of the test responder (tests/tools/pma_responder.cc), kept free of umad so
// the answers are a pure function of (request, time, state-file mode).
//
// PortSamplesControl (0x10), per port (a switch: PortSelect; an HCA: the node's own port,
// whatever the PortSelect):
//   Get: OpCode (echoed), PortSelect (the port answered for), Tick = 1, CounterWidth = 5
//     (a fixed advertisement: the kernel's ipath/qib PMAs say 4 for their 32-bit counters, so
//     nothing here depends on it; 0x11 is 32-bit and 0x1E 64-bit regardless),
//     CounterMask0-14 = 1 each (all 15 counters usable), SampleMechanisms = 0, SampleStatus,
//     OptionMask = 0x3C (bits 2-5: XmitDataVLN, RcvDataVLN, XmitPktVLN, RcvPktVLN),
//     VendorMask = 0, then SampleStart, SampleInterval, Tag, CounterSelect0-14 of the last Set
//     (all 0 and SampleStatus 0 before the first Set).
//   Set: stores Tag, SampleStart, SampleInterval, CounterSelect0-14 (any value is accepted,
//     even while a sample runs, as hardware does) and starts a sample at the time of the Set.
//     The reply shows the state just written.
// Timing: one tick is kTickPeriod = 1 us of wall-clock (steady) time. After a Set the status
//   is 1 (started) for SampleStart ticks, then 2 (running) for
//   max(SampleInterval ticks, kMinRunning = 50 ms), then 0 (done). The 50 ms floor makes the
//   running state observable with short intervals; values never depend on it.
// PortSamplesResult (0x11) / PortSamplesResultExtended (0x1E), Get only: Tag, SampleStatus
//   and, once the status is 0, Counter0-14 = sample_value(port, CounterSelect_i,
//   SampleInterval) (0 while a sample is started or running). 0x11 carries 32-bit counters
//   (saturated at 0xFFFFFFFF); 0x1E sets ExtendedWidth = 0x80000000 (64-bit counters).
// sample_value(port, select, interval) = rate * interval / 1000 (integer division), with
//   mandatory selects 0x0001-0x0005: rate = port*1000 + select*100 + 1
//   per-VL selects (0x4001 XmitDataVLN, 0x4002 RcvDataVLN, 0x4003 XmitPktVLN, 0x4004
//     RcvPktVLN; select = code | vl << 8): rate = port*1000 + (code & 0xff)*100 + 20 + vl + 1
//   any other select (0x0000, other optional codes): 0.
//   Example: port 1, XmitData (0x0001), interval 1000000 -> 1101 * 1000 = 1101000;
//            port 1, RcvDataVL3 (0x0302 | 0x4000 = 0x4302) -> (1000+200+23+1) * 1000 = 1224000.
// PortExtendedSpeedsCounters (0x1F), Get only: PortSelect, the request's CounterSelect (bytes
//   8-15) echoed, and counter field f (0 SyncHeaderErrorCounter, 1 UnknownBlockCounter,
//   2-13 ErrorDetectionCounterLane0-11, 14-25 FECCorrectableBlockCtrLane0-11,
//   26-37 FECUncorrectableBlockCtrLane0-11) = ext_speeds_value(port, f):
//   16-bit fields (f 0-13): port*100 + f + 1
//   32-bit fields (f 14-37): (port*100 + f + 1) * 100000
//   Example: port 1: SyncHeaderErrorCounter 101, ErrorDetectionCounterLane11 114,
//            FECCorrectableBlockCtrLane0 11500000, FECUncorrectableBlockCtrLane11 13800000.
//   With --ext-speeds-layout rsfec, the RS-FEC layout instead (an HDR port running RS-FEC):
//   field f (0 SyncHeaderErrorCounter, 1 UnknownBlockCounter, 2-13
//   FECCorrectableSymbolCtrLane0-11 at bytes 44 + 4*lane, 14 PortFECCorrectableBlockCtr at
//   byte 140, 15 PortFECUncorrectableBlockCtr at 144, 16 PortFECCorrectedSymbolCtr at 148;
//   bytes 20-43 and 92-139 reserved, 0) = rs_fec_value(port, f, s), s = whole seconds since
//   the responder started:
//   16-bit fields (f 0-1): port*100 + f + 1 (as in the older layout)
//   32-bit fields (f 2-16): (port*100 + f + 1) * 100000 + (f + 1) * 10 * s
//   Example: port 1 after 7 s: FECCorrectableSymbolCtrLane0 10300000 + 210 = 10300210,
//            PortFECCorrectedSymbolCtr 11700000 + 1190 = 11701190.
// State-file modes (the file's first word, re-read by the responder on every request: "foreign",
// "clobber"; anything else or no file: normal; only Gets are affected):
//   kForeign: every port reports SampleStatus 2 and Tag 0xBEEF in Control, Result and
//     ResultExtended (counters 0), as if another manager were sampling. A Set is still stored.
//   kClobber: a port that has had a Set reports Tag 0xBEEF in Control, Result and
//     ResultExtended (status and counters follow the stored sample), as if another manager had
//     reprogrammed it.
//   kForeignUntilSet ("foreign-until-set GENERATION"): as kForeign on a port until a Set
//     reaches it, then as kNormal: another manager's sample that a Set takes over. A new
//     GENERATION (forget_takeovers()) makes every port foreign again.
// Any other method/attribute of the PMA class, and every request of another class (SMPs such
//   as opensm's SMInfo, SA, CC): a GetResp with status 0x000C (a directed-route SMP's reply
//   also gets the D bit). PortSelect 0xFF on a switch: status 0x001C (no AllPortSelect for
//   sampling). Responses, Trap, Report and TrapRepress get no reply.
//
// Thread safety: none; one PmaEmulator is used from the responder's single thread.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <span>

#include "mad_layout.h"

namespace ibpulse::tools {

using SteadyClock = std::chrono::steady_clock;

inline constexpr uint8_t kTickByte = 1;
inline constexpr std::chrono::microseconds kTickPeriod{1};
inline constexpr std::chrono::milliseconds kMinRunning{50};
inline constexpr uint8_t kCounterWidth = 5;
inline constexpr uint8_t kCounterMaskEach = 1;
inline constexpr uint64_t kOptionMask = 0x3C;
inline constexpr uint32_t kExtendedWidth64 = 0x80000000;
inline constexpr uint16_t kForeignTag = 0xBEEF;
inline constexpr std::size_t kSampleCounters = 15;

enum class StateMode { kNormal, kForeign, kClobber, kForeignUntilSet };

// The documented value formulas (see the header comment).
uint64_t sample_value(unsigned port, uint16_t select, uint32_t interval);
uint64_t ext_speeds_value(unsigned port, unsigned field);
uint64_t rs_fec_value(unsigned port, unsigned field, uint64_t seconds);

// What the responder does with one received MAD.
enum class Disposition {
  kIgnore,  // a response, a trap/report, or not a MAD we can answer: send nothing
  kReply,   // send `reply`
};

class PmaEmulator {
 public:
  // `is_switch`: PortSelect chooses the port; otherwise every request is for `own_port`.
  // `rs_fec`: PortExtendedSpeedsCounters answers in its RS-FEC layout; `started` is when its
  // counters started counting.
  PmaEmulator(bool is_switch, unsigned own_port, bool rs_fec = false,
              SteadyClock::time_point started = SteadyClock::now())
      : is_switch_(is_switch), own_port_(own_port), rs_fec_(rs_fec), started_(started) {}

  // Builds the reply to `request` (a whole 256-byte MAD of any registered class). The reply
  // keeps the request's header (TID included), with method GetResp and the status set.
  Disposition answer(std::span<const uint8_t, kMadSize> request, SteadyClock::time_point now,
                     StateMode mode, std::span<uint8_t, kMadSize> reply);
  // kForeignUntilSet: every port reports the foreign sample again until its next Set.
  void forget_takeovers() {
    for (auto& [port, session] : sessions_)
      session.taken = false;
  }

 private:
  struct Session {
    bool started = false;
    bool taken = false;  // a Set arrived since the last forget_takeovers()
    SteadyClock::time_point set_time{};
    uint32_t sample_start = 0;
    uint32_t sample_interval = 0;
    uint16_t tag = 0;
    std::array<uint16_t, kSampleCounters> select{};
  };

  uint16_t pma(uint8_t method, uint16_t attr, const uint8_t* in, uint8_t* out,
               SteadyClock::time_point now, StateMode mode);
  static void samples_control(const Session& s, unsigned port, uint8_t opcode, uint16_t tag,
                              uint8_t status, uint8_t* out);
  static void samples_result(const Session& s, unsigned port, bool extended, uint16_t tag,
                             uint8_t status, uint8_t* out);
  static void ext_speeds(unsigned port, const uint8_t* in, uint8_t* out);
  void ext_speeds_rs_fec(unsigned port, const uint8_t* in, uint8_t* out,
                         SteadyClock::time_point now) const;
  static uint8_t status_at(const Session& s, SteadyClock::time_point now);

  bool is_switch_;
  unsigned own_port_;
  bool rs_fec_;
  SteadyClock::time_point started_;
  std::map<unsigned, Session> sessions_;
};

}  // namespace ibpulse::tools
