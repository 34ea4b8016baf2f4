#pragma once
// A scripted local HCA port for the MAD engine's unit tests (collector/src/umad_port.h): what
// the fabric answers, when, and in what shape is decided by the test, and time is virtual.
//
// Modelled: agents registered per management class (a class can be made to refuse); every
// MAD sent is recorded with its address, timeout and bytes; a test's `on_send` schedules the
// replies (at any time: late, after a later attempt's, twice, never) with a MAD status, a umad
// status (our send returned undelivered) and a length (short replies); receive() hands out the
// earliest reply due within its timeout, advancing the clock to it, or advances the clock by
// the whole timeout, as a blocking umad_recv would take it. Sends can be made to fail.
// Not modelled: the kernel's queues and agents' filtering by class, umad2sim's TID high bits.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "ibpulse/base/check.h"
#include "mad_codec.h"
#include "umad_port.h"

namespace ibpulse::collector::testing {

// Big-endian fields of a MAD.
inline uint32_t be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

struct SentMad {
  int agent = -1;
  UmadAddress to;
  std::chrono::milliseconds timeout{0};
  UmadPort::Clock::time_point at;
  std::array<uint8_t, kMadSize> mad{};

  uint8_t mgmt_class() const { return mad[1]; }
  uint8_t method() const { return mad[3]; }
  uint32_t tid() const { return be32(mad.data() + 12); }
  uint16_t attribute() const { return static_cast<uint16_t>(mad[16] << 8 | mad[17]); }
  uint32_t modifier() const { return be32(mad.data() + 20); }
  const uint8_t* data() const { return mad.data() + kMadDataOffset; }
};

struct ScriptedReply {
  UmadPort::Clock::time_point due;
  int agent = 0;
  int umad_status = 0;
  int length = static_cast<int>(kMadSize);
  std::array<uint8_t, kMadSize> mad{};
};

class ScriptedUmad final : public UmadPort {
 public:
  // Decides the fabric's answers to each MAD sent (schedule them with reply()/answer()).
  std::function<void(const SentMad&)> on_send;
  bool fail_sends = false;
  std::vector<int> refused_classes;  // register_agent fails for these

  int register_agent(int mgmt_class) override {
    if (std::count(refused_classes.begin(), refused_classes.end(), mgmt_class) > 0) return -13;
    agents_[next_agent_] = mgmt_class;
    return next_agent_++;
  }
  void unregister_agent(int agent) override { agents_.erase(agent); }
  bool registered(int mgmt_class) const {
    return std::any_of(agents_.begin(), agents_.end(),
                       [&](const auto& a) { return a.second == mgmt_class; });
  }

  uint8_t* send_buffer() override { return next_.data(); }
  int send(int agent, const UmadAddress& to, std::chrono::milliseconds timeout) override {
    if (fail_sends || !agents_.contains(agent)) return -1;
    SentMad sent{agent, to, timeout, now_, next_};
    sent_.push_back(sent);
    if (on_send) on_send(sent);
    return 0;
  }

  bool receive(std::chrono::milliseconds timeout, UmadReceived& out) override {
    const auto due_by = now_ + timeout;
    auto first = std::min_element(replies_.begin(), replies_.end(),
                                  [](const auto& a, const auto& b) { return a.due < b.due; });
    if (first == replies_.end() || first->due > due_by) {
      now_ = due_by;
      return false;
    }
    now_ = std::max(now_, first->due);
    received_ = *first;
    replies_.erase(first);
    out.agent = received_.agent;
    out.status = received_.umad_status;
    out.length = received_.length;
    out.mad = received_.mad.data();
    return true;
  }

  Clock::time_point now() const override { return now_; }

  // The agent's GetResp to `sent` after `delay`, with MAD status `status` and `data` (192
  // bytes, or the request's own data when empty).
  ScriptedReply& answer(const SentMad& sent, std::chrono::milliseconds delay, uint16_t status = 0,
                        const std::vector<uint8_t>& data = {}) {
    ScriptedReply r;
    r.due = now_ + delay;
    r.agent = sent.agent;
    r.mad = sent.mad;
    r.mad[3] = 0x81;  // GetResp answers a Get and a Set
    r.mad[4] = static_cast<uint8_t>(status >> 8);
    r.mad[5] = static_cast<uint8_t>(status);
    if (!data.empty())
      std::memcpy(r.mad.data() + kMadDataOffset, data.data(), std::min(data.size(), kMadDataSize));
    replies_.push_back(r);
    return replies_.back();
  }

  const std::vector<SentMad>& sent() const { return sent_; }
  size_t replies_pending() const { return replies_.size(); }

 private:
  std::map<int, int> agents_;  // agent id -> management class
  int next_agent_ = 0;
  std::array<uint8_t, kMadSize> next_{};
  std::vector<SentMad> sent_;
  std::vector<ScriptedReply> replies_;
  ScriptedReply received_;
  // Starts far from the epoch: a zero time point reads as "never" to the collector.
  Clock::time_point now_ = Clock::time_point{} + std::chrono::hours(1000);
};

// The engine over a ScriptedUmad it owns, with the port kept at hand for scripting.
struct ScriptedEngine {
  ScriptedUmad* umad = nullptr;  // owned by the engine
  std::unique_ptr<MadEngine> engine;

  explicit ScriptedEngine(const MadEngineOptions& options = {}) {
    auto port = std::make_unique<ScriptedUmad>();
    umad = port.get();
    auto made = make_mad_engine(std::move(port), options);
    IBPULSE_CHECK(made.ok(), "scripted engine: {}", made.ok() ? "" : made.error());
    engine = std::move(made.value());
  }
};

}  // namespace ibpulse::collector::testing
