#include "ibpulse/collector/sampler.h"

#include <fmt/format.h>

#include <random>
#include <thread>

#include "ibpulse/collector/pma.h"
#include "ibpulse/schema/fields.h"

namespace ibpulse::collector {
namespace {

using Clock = std::chrono::steady_clock;
using schema::extract_bits;

constexpr uint16_t kControl = 0x10, kResult = 0x11, kResultExtended = 0x1E;
constexpr size_t kMaxCounters = kMaxSampleCounters;
constexpr unsigned kStatusDone = 0;

struct Control {
  uint8_t tick = 0;
  uint8_t status = 0;
  uint64_t option_mask = 0;
  uint16_t tag = 0;
  uint32_t counter_mask[kMaxCounters] = {};
};

Control decode_control(std::span<const uint8_t> d) {
  Control c;
  c.tick = static_cast<uint8_t>(extract_bits(d, 16, 8));
  c.status = static_cast<uint8_t>(extract_bits(d, 94, 2));
  c.option_mask = extract_bits(d, 96, 64);
  c.tag = static_cast<uint16_t>(extract_bits(d, 288, 16));
  // CounterMask0 at bits 34-36, 1-9 from bit 37, 10-14 from bit 65 (bit 64 is reserved).
  for (size_t i = 0; i < kMaxCounters; ++i) {
    const size_t bit = i == 0 ? 34 : i <= 9 ? 37 + 3 * (i - 1) : 65 + 3 * (i - 10);
    c.counter_mask[i] = static_cast<uint32_t>(extract_bits(d, static_cast<unsigned>(bit), 3));
  }
  return c;
}

void put(std::array<uint8_t, kMadDataSize>& d, size_t byte, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    d[byte + i] = static_cast<uint8_t>(value >> (8 * (bytes - 1 - i)));
}

MadRequest request_for(const SampleRequest& r, MadMethod method, uint16_t attribute) {
  MadRequest m;
  m.lid = r.lid;
  m.node = 0;
  m.method = method;
  m.attribute = attribute;
  m.data[1] = r.port;  // PortSelect
  return m;
}

std::string failure_detail(std::string_view step, const MadCompletion& reply) {
  if (reply.failure == MadFailure::kStatus) {
    return fmt::format("{}: MAD status 0x{:04x}", step, reply.mad_status);
  }
  return fmt::format("{}: {}", step, to_string(reply.failure));
}

uint16_t fresh_tag(uint16_t avoid) {
  static std::mt19937 rng(std::random_device{}());
  uint16_t tag = 0;
  while (tag == 0 || tag == avoid)
    tag = static_cast<uint16_t>(rng());
  return tag;
}

}  // namespace

std::string select_name(uint16_t code) {
  switch (code) {
    case select::kXmitData:
      return "PortXmitData";
    case select::kRcvData:
      return "PortRcvData";
    case select::kXmitPkts:
      return "PortXmitPkts";
    case select::kRcvPkts:
      return "PortRcvPkts";
    case select::kXmitWait:
      return "PortXmitWait";
    default:
      break;
  }
  const unsigned vl = (code >> 8) & 0xF;
  switch (code & 0xF0FF) {
    case select::kXmitDataVL:
      return fmt::format("PortXmitDataVL{}", vl);
    case select::kRcvDataVL:
      return fmt::format("PortRcvDataVL{}", vl);
    case select::kXmitPktVL:
      return fmt::format("PortXmitPktVL{}", vl);
    case select::kRcvPktVL:
      return fmt::format("PortRcvPktVL{}", vl);
    default:
      return fmt::format("0x{:04x}", code);
  }
}

const std::vector<std::string>& default_sample_counters() {
  static const std::vector<std::string> names = {
      "PortXmitData",    "PortRcvData",    "PortXmitDataVL0", "PortXmitDataVL1", "PortXmitDataVL2",
      "PortXmitDataVL3", "PortRcvDataVL0", "PortRcvDataVL1",  "PortRcvDataVL2",  "PortRcvDataVL3"};
  return names;
}

std::optional<uint16_t> parse_select(std::string_view name) {
  for (uint16_t code = select::kXmitData; code <= select::kXmitWait; ++code) {
    if (select_name(code) == name) return code;
  }
  for (uint16_t code :
       {select::kXmitDataVL, select::kRcvDataVL, select::kXmitPktVL, select::kRcvPktVL}) {
    for (unsigned vl = 0; vl < 16; ++vl) {
      if (select_name(select::per_vl(code, vl)) == name) return select::per_vl(code, vl);
    }
  }
  if (name.starts_with("0x")) {
    char* end = nullptr;
    const std::string text(name);
    const unsigned long v = std::strtoul(text.c_str(), &end, 16);
    if (*end == '\0' && v > 0 && v <= 0xFFFF) return static_cast<uint16_t>(v);
  }
  return std::nullopt;
}

int option_bit(uint16_t code) {
  switch (code & 0xF0FF) {
    case select::kXmitDataVL:
      return 2;
    case select::kRcvDataVL:
      return 3;
    case select::kXmitPktVL:
      return 4;
    case select::kRcvPktVL:
      return 5;
    default:
      return -1;
  }
}

std::string_view to_string(SampleOutcome o) {
  switch (o) {
    case SampleOutcome::kDone:
      return "done";
    case SampleOutcome::kBusy:
      return "busy";
    case SampleOutcome::kClobbered:
      return "clobbered";
    case SampleOutcome::kUnsupported:
      return "unsupported";
    case SampleOutcome::kFailed:
      return "failed";
    case SampleOutcome::kTimedOut:
      return "timed_out";
  }
  return "unknown";
}

SampleSession::SampleSession(SampleRequest request, Clock::time_point now)
    : request_(std::move(request)), deadline_(now + request_.timeout), wake_at_(now) {}

void SampleSession::finish(SampleOutcome outcome, std::string detail) {
  result_.outcome = outcome;
  result_.detail = std::move(detail);
  finished_ = true;
}

std::optional<MadRequest> SampleSession::next(Clock::time_point now) {
  if (finished_ || waiting_ || now < wake_at_) return std::nullopt;
  if (step_ == Step::kPollResult && now > deadline_) {
    finish(SampleOutcome::kTimedOut,
           fmt::format("the sample was not done within {} ms", request_.timeout.count()));
    return std::nullopt;
  }
  waiting_ = true;
  switch (step_) {
    case Step::kGetControl:
      return request_for(request_, MadMethod::kGet, kControl);
    case Step::kSetControl: {
      MadRequest set = request_for(request_, MadMethod::kSet, kControl);
      put(set.data, 28, request_.start, 4);
      put(set.data, 32, request_.interval, 4);
      put(set.data, 36, result_.tag, 2);
      for (size_t i = 0; i < request_.selects.size(); ++i) {
        put(set.data, 38 + 2 * i, request_.selects[i], 2);
      }
      return set;
    }
    case Step::kPollResult:
      return request_for(request_, MadMethod::kGet, kResult);
    case Step::kReadExtended:
      return request_for(request_, MadMethod::kGet, kResultExtended);
  }
  return std::nullopt;
}

void SampleSession::on_reply(const MadCompletion& reply, Clock::time_point now) {
  waiting_ = false;
  const auto data = reply.data;
  switch (step_) {
    case Step::kGetControl: {
      if (reply.failure != MadFailure::kNone) {
        return finish(reply.failure == MadFailure::kStatus ? SampleOutcome::kUnsupported
                                                           : SampleOutcome::kFailed,
                      failure_detail("PortSamplesControl Get", reply));
      }
      const Control before = decode_control(data);
      if (before.status != kStatusDone && !request_.take_over) {
        return finish(SampleOutcome::kBusy,
                      fmt::format("another manager is sampling this port (status {}, tag 0x{:04x})",
                                  before.status, before.tag));
      }
      for (size_t i = 0; i < request_.selects.size(); ++i) {
        const int bit = option_bit(request_.selects[i]);
        if (bit >= 0 && (before.option_mask >> bit & 1) == 0) {
          return finish(SampleOutcome::kUnsupported,
                        fmt::format("the port does not offer {} (OptionMask 0x{:x})",
                                    select_name(request_.selects[i]), before.option_mask));
        }
        if (before.counter_mask[i] == 0) {
          return finish(SampleOutcome::kUnsupported, fmt::format("the port has no counter {}", i));
        }
      }
      result_.tag = fresh_tag(before.tag);
      result_.tick = before.tick;
      result_.interval = request_.interval;
      step_ = Step::kSetControl;
      return;
    }
    case Step::kSetControl:
      if (reply.failure != MadFailure::kNone) {
        return finish(SampleOutcome::kFailed, failure_detail("PortSamplesControl Set", reply));
      }
      step_ = Step::kPollResult;
      set_answered_ = now;
      return;
    case Step::kPollResult: {
      if (reply.failure != MadFailure::kNone) {
        return finish(SampleOutcome::kFailed, failure_detail("PortSamplesResult Get", reply));
      }
      const auto tag = static_cast<uint16_t>(extract_bits(data, 0, 16));
      if (tag != result_.tag) {
        return finish(SampleOutcome::kClobbered,
                      fmt::format("the port's tag is 0x{:04x}, ours 0x{:04x}: another manager "
                                  "reprogrammed it",
                                  tag, result_.tag));
      }
      if (extract_bits(data, 30, 2) != kStatusDone) {
        wake_at_ = now + request_.poll_every;
        return;
      }
      std::copy(data.begin(), data.end(), polled_.begin());
      result_.ran_for = now - set_answered_;
      step_ = Step::kReadExtended;
      return;
    }
    case Step::kReadExtended: {
      // 64-bit results where the port answers them with our tag, else the 32-bit ones.
      const bool extended = reply.failure == MadFailure::kNone &&
                            static_cast<uint16_t>(extract_bits(data, 0, 16)) == result_.tag;
      result_.extended = extended;
      for (size_t i = 0; i < request_.selects.size(); ++i) {
        result_.counters.push_back(
            extended ? extract_bits(data, static_cast<unsigned>(64 + 64 * i), 64)
                     : extract_bits(polled_, static_cast<unsigned>(32 + 32 * i), 32));
      }
      return finish(SampleOutcome::kDone, "");
    }
  }
}

Result<SampleResult> run_sample(MadEngine& engine, const SampleRequest& r) {
  if (r.selects.empty() || r.selects.size() > kMaxCounters) {
    return Err("a sample takes 1 to {} counters, not {}", kMaxCounters, r.selects.size());
  }
  if (r.interval == 0) return Err("the sample interval must be positive");
  SampleSession session(r, Clock::now());
  while (!session.finished()) {
    auto request = session.next(Clock::now());
    if (!request) {
      std::this_thread::sleep_until(session.wake_at());
      continue;
    }
    engine.submit(*request);
    drain(engine, [&](const MadCompletion& c) { session.on_reply(c, Clock::now()); });
  }
  return session.result();
}

}  // namespace ibpulse::collector
