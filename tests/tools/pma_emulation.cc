#include "pma_emulation.h"

#include <algorithm>
#include <cstring>

namespace ibpulse::tools {
namespace {

// PortSamplesControl data offsets (from the start of the attribute data).
constexpr std::size_t kPscOpCode = 0;
constexpr std::size_t kPscPortSelect = 1;
constexpr std::size_t kPscTick = 2;
constexpr std::size_t kPscCounterWidth = 3;
constexpr std::size_t kPscCounterMasks0to9 = 4;    // 32 bits: 2 reserved, 10 x 3 bits
constexpr std::size_t kPscCounterMasks10to14 = 8;  // 16 bits: 1 reserved, 5 x 3 bits
constexpr std::size_t kPscSampleMechanisms = 10;
constexpr std::size_t kPscSampleStatus = 11;  // low 2 bits
constexpr std::size_t kPscOptionMask = 12;    // 64 bits
constexpr std::size_t kPscSampleStart = 28;
constexpr std::size_t kPscSampleInterval = 32;
constexpr std::size_t kPscTag = 36;
constexpr std::size_t kPscCounterSelect0 = 38;  // 15 x 16 bits

// PortSamplesResult / PortSamplesResultExtended.
constexpr std::size_t kPsrTag = 0;
constexpr std::size_t kPsrSampleStatus = 2;  // low 2 bits of a 16-bit field
constexpr std::size_t kPsrCounter0 = 4;      // 15 x 32 bits
constexpr std::size_t kPsreExtendedWidth = 4;
constexpr std::size_t kPsreCounter0 = 8;  // 15 x 64 bits

// PortExtendedSpeedsCounters.
constexpr std::size_t kPescPortSelect = 1;
constexpr std::size_t kPescCounterSelect = 8;  // 64 bits
constexpr std::size_t kPescSyncHeader = 16;
constexpr std::size_t kPescErrorDetection0 = 20;    // 12 x 16 bits
constexpr std::size_t kPescFecCorrectable0 = 44;    // 12 x 32 bits
constexpr std::size_t kPescFecUncorrectable0 = 92;  // 12 x 32 bits
constexpr std::size_t kPescRsFecTotals = 140;       // RS-FEC layout: 3 x 32 bits
constexpr unsigned kPescLanes = 12;

constexpr uint8_t kStatusDone = 0;
constexpr uint8_t kStatusStarted = 1;
constexpr uint8_t kStatusRunning = 2;

constexpr uint8_t kAllPortSelect = 0xFF;

bool is_pma_per_vl_code(uint16_t code) {
  return code >= 0x4001 && code <= 0x4004;
}

}  // namespace

uint64_t sample_value(unsigned port, uint16_t select, uint32_t interval) {
  uint64_t rate = 0;
  if (select >= 0x0001 && select <= 0x0005) {
    rate = uint64_t{port} * 1000 + uint64_t{select} * 100 + 1;
  } else if (const auto code = static_cast<uint16_t>(select & 0xF0FF); is_pma_per_vl_code(code)) {
    const unsigned vl = static_cast<unsigned>(select >> 8) & 0xFu;
    rate = uint64_t{port} * 1000 + uint64_t{code & 0xFFu} * 100 + 20 + vl + 1;
  }
  return rate * interval / 1000;
}

uint64_t ext_speeds_value(unsigned port, unsigned field) {
  const uint64_t base = uint64_t{port} * 100 + field + 1;
  return field < 2 + kPescLanes ? base : base * 100000;
}

uint64_t rs_fec_value(unsigned port, unsigned field, uint64_t seconds) {
  const uint64_t base = uint64_t{port} * 100 + field + 1;
  return field < 2 ? base : base * 100000 + (uint64_t{field} + 1) * 10 * seconds;
}

uint8_t PmaEmulator::status_at(const Session& s, SteadyClock::time_point now) {
  if (!s.started) return kStatusDone;
  const auto start_delay = kTickPeriod * int64_t{s.sample_start};
  const auto running =
      std::max<std::chrono::microseconds>(kTickPeriod * int64_t{s.sample_interval}, kMinRunning);
  const auto elapsed = now - s.set_time;
  if (elapsed < start_delay) return kStatusStarted;
  if (elapsed < start_delay + running) return kStatusRunning;
  return kStatusDone;
}

Disposition PmaEmulator::answer(std::span<const uint8_t, kMadSize> request,
                                SteadyClock::time_point now, StateMode mode,
                                std::span<uint8_t, kMadSize> reply) {
  const uint8_t mgmt_class = request[kOffMgmtClass];
  const uint8_t method = request[kOffMethod];
  if ((method & kMethodResponseBit) != 0) return Disposition::kIgnore;
  // Traps and reports expect no GetResp (a trap's answer would be a TrapRepress).
  if (method == kMethodTrap || method == kMethodReport || method == kMethodTrapRepress) {
    return Disposition::kIgnore;
  }
  const auto attr = static_cast<uint16_t>(get_be(&request[kOffAttrId], 2));

  std::memcpy(reply.data(), request.data(), kMadSize);
  reply[kOffMethod] = kMethodGetResp;
  uint16_t status = kStatusUnsupportedMethodAttr;
  if (mgmt_class == kClassPerformance) {
    std::memset(&reply[kPmaDataOffset], 0, kPmaDataSize);
    status = pma(method, attr, &request[kPmaDataOffset], &reply[kPmaDataOffset], now, mode);
  }
  if (mgmt_class == kClassSmiDirected) {
    // Directed route: the D bit (direction: response) and a 15-bit status. ibsim routes the
    // reply back along the return path it stored in the request, which is kept as is.
    put_be(&reply[kOffStatus], 2, 0x8000u | status);
  } else {
    put_be(&reply[kOffStatus], 2, status);
  }
  return Disposition::kReply;
}

uint16_t PmaEmulator::pma(uint8_t method, uint16_t attr, const uint8_t* in, uint8_t* out,
                          SteadyClock::time_point now, StateMode mode) {
  const bool supported =
      (attr == kAttrPortSamplesControl && (method == kMethodGet || method == kMethodSet)) ||
      ((attr == kAttrPortSamplesResult || attr == kAttrPortSamplesResultExt ||
        attr == kAttrPortExtSpeedsCounters) &&
       method == kMethodGet);
  if (!supported) return kStatusUnsupportedMethodAttr;

  const uint8_t port_select = in[kPscPortSelect];  // byte 1 in all four attributes
  if (is_switch_ && port_select == kAllPortSelect) return kStatusInvalidAttrValue;
  const unsigned port = is_switch_ ? port_select : own_port_;

  if (attr == kAttrPortExtSpeedsCounters) {
    if (rs_fec_) {
      ext_speeds_rs_fec(port, in, out, now);
    } else {
      ext_speeds(port, in, out);
    }
    return kStatusOk;
  }

  Session& s = sessions_[port];
  if (attr == kAttrPortSamplesControl && method == kMethodSet) {
    s.started = true;
    s.taken = true;
    s.set_time = now;
    s.sample_start = static_cast<uint32_t>(get_be(&in[kPscSampleStart], 4));
    s.sample_interval = static_cast<uint32_t>(get_be(&in[kPscSampleInterval], 4));
    s.tag = static_cast<uint16_t>(get_be(&in[kPscTag], 2));
    for (std::size_t i = 0; i < kSampleCounters; ++i) {
      s.select[i] = static_cast<uint16_t>(get_be(&in[kPscCounterSelect0 + 2 * i], 2));
    }
    samples_control(s, port, in[kPscOpCode], s.tag, status_at(s, now), out);
    return kStatusOk;
  }

  uint16_t tag = s.tag;
  uint8_t status = status_at(s, now);
  if (mode == StateMode::kForeign || (mode == StateMode::kForeignUntilSet && !s.taken)) {
    tag = kForeignTag;
    status = kStatusRunning;
  } else if (mode == StateMode::kClobber && s.started) {
    tag = kForeignTag;
  }
  if (attr == kAttrPortSamplesControl) {
    samples_control(s, port, in[kPscOpCode], tag, status, out);
  } else {
    samples_result(s, port, attr == kAttrPortSamplesResultExt, tag, status, out);
  }
  return kStatusOk;
}

void PmaEmulator::samples_control(const Session& s, unsigned port, uint8_t opcode, uint16_t tag,
                                  uint8_t status, uint8_t* out) {
  out[kPscOpCode] = opcode;
  out[kPscPortSelect] = static_cast<uint8_t>(port);
  out[kPscTick] = kTickByte;
  out[kPscCounterWidth] = kCounterWidth & 0x7;
  uint64_t masks0to9 = 0;
  for (unsigned i = 0; i < 10; ++i)
    masks0to9 |= uint64_t{kCounterMaskEach} << (27 - 3 * i);
  put_be(&out[kPscCounterMasks0to9], 4, masks0to9);
  uint64_t masks10to14 = 0;
  for (unsigned i = 0; i < 5; ++i)
    masks10to14 |= uint64_t{kCounterMaskEach} << (12 - 3 * i);
  put_be(&out[kPscCounterMasks10to14], 2, masks10to14);
  out[kPscSampleMechanisms] = 0;
  out[kPscSampleStatus] = status & 0x3;
  put_be(&out[kPscOptionMask], 8, kOptionMask);
  put_be(&out[kPscSampleStart], 4, s.sample_start);
  put_be(&out[kPscSampleInterval], 4, s.sample_interval);
  put_be(&out[kPscTag], 2, tag);
  for (std::size_t i = 0; i < kSampleCounters; ++i) {
    put_be(&out[kPscCounterSelect0 + 2 * i], 2, s.select[i]);
  }
}

void PmaEmulator::samples_result(const Session& s, unsigned port, bool extended, uint16_t tag,
                                 uint8_t status, uint8_t* out) {
  put_be(&out[kPsrTag], 2, tag);
  put_be(&out[kPsrSampleStatus], 2, status & 0x3u);
  if (extended) put_be(&out[kPsreExtendedWidth], 4, kExtendedWidth64);
  if (status != kStatusDone) return;  // counters read 0 until the sample is done
  for (std::size_t i = 0; i < kSampleCounters; ++i) {
    const uint64_t v = sample_value(port, s.select[i], s.sample_interval);
    if (extended) {
      put_be(&out[kPsreCounter0 + 8 * i], 8, v);
    } else {
      put_be(&out[kPsrCounter0 + 4 * i], 4, std::min<uint64_t>(v, 0xFFFFFFFFu));
    }
  }
}

void PmaEmulator::ext_speeds(unsigned port, const uint8_t* in, uint8_t* out) {
  out[kPescPortSelect] = static_cast<uint8_t>(port);
  std::memcpy(&out[kPescCounterSelect], &in[kPescCounterSelect], 8);
  put_be(&out[kPescSyncHeader], 2, ext_speeds_value(port, 0));
  put_be(&out[kPescSyncHeader + 2], 2, ext_speeds_value(port, 1));
  for (unsigned lane = 0; lane < kPescLanes; ++lane) {
    put_be(&out[kPescErrorDetection0 + std::size_t{2} * lane], 2, ext_speeds_value(port, 2 + lane));
    put_be(&out[kPescFecCorrectable0 + std::size_t{4} * lane], 4,
           ext_speeds_value(port, 14 + lane));
    put_be(&out[kPescFecUncorrectable0 + std::size_t{4} * lane], 4,
           ext_speeds_value(port, 26 + lane));
  }
}

void PmaEmulator::ext_speeds_rs_fec(unsigned port, const uint8_t* in, uint8_t* out,
                                    SteadyClock::time_point now) const {
  const auto seconds = static_cast<uint64_t>(std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::seconds>(now - started_).count()));
  out[kPescPortSelect] = static_cast<uint8_t>(port);
  std::memcpy(&out[kPescCounterSelect], &in[kPescCounterSelect], 8);
  std::memset(&out[kPescErrorDetection0], 0, kPescRsFecTotals + 12 - kPescErrorDetection0);
  put_be(&out[kPescSyncHeader], 2, rs_fec_value(port, 0, seconds));
  put_be(&out[kPescSyncHeader + 2], 2, rs_fec_value(port, 1, seconds));
  for (unsigned lane = 0; lane < kPescLanes; ++lane) {
    put_be(&out[kPescFecCorrectable0 + std::size_t{4} * lane], 4,
           rs_fec_value(port, 2 + lane, seconds));
  }
  for (unsigned total = 0; total < 3; ++total) {
    put_be(&out[kPescRsFecTotals + std::size_t{4} * total], 4,
           rs_fec_value(port, 14 + total, seconds));
  }
}

}  // namespace ibpulse::tools
