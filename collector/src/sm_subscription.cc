#include "ibpulse/collector/sm_subscription.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <infiniband/umad.h>

#include <cstring>
#include <map>
#include <vector>

#include "big_endian.h"
#include "ibpulse/base/thread_name.h"
#include "mad_codec.h"

namespace ibpulse::collector {
namespace {

using Clock = std::chrono::steady_clock;
using wire::get16;
using wire::get32;
using wire::put16;
using wire::put32;

// The SA's MAD (IBA 15.2.1): the common header, an RMPP header, SM_Key, AttributeOffset and
// ComponentMask, then the attribute from byte 56.
constexpr uint8_t kSaClass = 0x03;
constexpr uint8_t kSaClassVersion = 2;
constexpr uint8_t kMethodSet = 0x02;
constexpr uint8_t kMethodGetResp = 0x81;
constexpr uint8_t kMethodReport = 0x06;
constexpr uint8_t kMethodReportResp = 0x86;
constexpr uint16_t kAttrNotice = 0x0002;
constexpr uint16_t kAttrInformInfo = 0x0003;
constexpr size_t kSmKey = 36;
constexpr size_t kSaData = 56;
// InformInfo's RespTimeValue: 4.096 us x 2^18, about a second, for the SM's Report retries.
constexpr uint8_t kRespTimeValue = 18;

// A zeroed SA MAD's common header.
void sa_header(uint8_t* mad, uint8_t method, uint16_t attribute, uint32_t tid) {
  std::memset(mad, 0, kMadSize);
  mad[0] = 1;  // base version
  mad[1] = kSaClass;
  mad[2] = kSaClassVersion;
  mad[3] = method;
  put32(mad + 12, tid);  // bytes 8-11 (TID high) belong to the kernel / umad2sim
  put16(mad + 16, attribute);
}

// InformInfo (IBA 15.2.5.12): every LID (LIDRangeBegin 0xFFFF), generic, subscribe, any type
// and producer, one trap number; the QPN is the SA's to fill from our address.
void inform_info(uint8_t* d, uint16_t trap) {
  put16(d + 16, 0xffff);  // LIDRangeBegin: all
  d[22] = 1;              // IsGeneric
  d[23] = 1;              // Subscribe
  put16(d + 24, 0xffff);  // Type: all
  put16(d + 26, trap);
  put32(d + 28, kRespTimeValue);  // QPN (upper 24 bits) 0, RespTimeValue
  d[33] = d[34] = d[35] = 0xff;   // ProducerType: all
}

class LibUmadSubscription final : public SmSubscription {
 public:
  LibUmadSubscription(SmSubscriptionOptions options, int port_id, int agent)
      : options_(std::move(options)),
        port_id_(port_id),
        agent_(agent),
        buf_(umad_size() + kMadSize) {}
  ~LibUmadSubscription() override {
    umad_unregister(port_id_, agent_);
    umad_close_port(port_id_);
  }

  void run(const std::atomic<bool>& stop, const SmSubscriptionEvents& events) override;
  SmSubscriptionStats stats() const override {
    return {subscribed_.load(), failures_.load(), reports_.load(), untranslatable_.load()};
  }

 private:
  uint16_t sm_lid() const;
  void subscribe(uint16_t sm_lid, const SmSubscriptionEvents& events);
  void expire_sets(Clock::time_point now, const SmSubscriptionEvents& events);
  void receive(std::chrono::milliseconds wait, const SmSubscriptionEvents& events);
  void answer_set(const uint8_t* mad, int status, const SmSubscriptionEvents& events);
  void answer_report(const uint8_t* in, const SmSubscriptionEvents& events);
  uint8_t* mad() { return static_cast<uint8_t*>(umad_get_mad(buf_.data())); }

  SmSubscriptionOptions options_;
  int port_id_;
  int agent_;
  std::vector<uint8_t> buf_;
  uint32_t next_tid_ = 1;
  struct PendingSet {
    uint16_t trap = 0;
    Clock::time_point deadline;
  };
  std::map<uint32_t, PendingSet> pending_;  // by TID
  std::atomic<uint64_t> subscribed_{0}, failures_{0}, reports_{0}, untranslatable_{0};
};

uint16_t LibUmadSubscription::sm_lid() const {
  umad_port_t port{};
  const char* ca = options_.ca.empty() ? nullptr : options_.ca.c_str();
  if (umad_get_port(ca, options_.ca_port, &port) < 0) return 0;
  const auto lid = static_cast<uint16_t>(port.sm_lid);
  umad_release_port(&port);
  return lid;
}

void LibUmadSubscription::subscribe(uint16_t sm_lid, const SmSubscriptionEvents& events) {
  const auto deadline = Clock::now() + options_.timeout;
  for (const uint16_t trap : options_.traps) {
    const uint32_t tid = next_tid_++;
    sa_header(mad(), kMethodSet, kAttrInformInfo, tid);
    wire::put64(mad() + kSmKey, options_.sa_key);
    inform_info(mad() + kSaData, trap);
    umad_set_addr(buf_.data(), sm_lid, 1, 0, kQp1Qkey);
    const int timeout_ms = static_cast<int>(options_.timeout.count());
    if (umad_send(port_id_, agent_, buf_.data(), static_cast<int>(kMadSize), timeout_ms, 0) < 0) {
      ++failures_;
      if (events.failed) events.failed(trap, fmt::format("cannot send to the SM (LID {})", sm_lid));
      continue;
    }
    pending_[tid] = {trap, deadline};
  }
}

void LibUmadSubscription::expire_sets(Clock::time_point now, const SmSubscriptionEvents& events) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.deadline > now) {
      ++it;
      continue;
    }
    ++failures_;
    if (events.failed) events.failed(it->second.trap, "no answer from the SA");
    it = pending_.erase(it);
  }
}

void LibUmadSubscription::answer_set(const uint8_t* mad, int status,
                                     const SmSubscriptionEvents& events) {
  const auto it = pending_.find(get32(mad + 12));
  if (it == pending_.end()) return;  // a late answer: its Set already counted as failed
  const uint16_t trap = it->second.trap;
  pending_.erase(it);
  const uint16_t sa_status = get16(mad + 4);
  if (status != 0 || sa_status != 0) {
    ++failures_;
    if (events.failed) {
      events.failed(trap, status != 0 ? fmt::format("undelivered (umad status {})", status)
                                      : fmt::format("refused (SA status 0x{:04x})", sa_status));
    }
    return;
  }
  ++subscribed_;
  if (events.subscribed) events.subscribed(trap);
}

void LibUmadSubscription::answer_report(const uint8_t* in, const SmSubscriptionEvents& events) {
  ++reports_;
  uint8_t notice[kNoticeSize];
  std::memcpy(notice, in + kSaData, sizeof notice);
  // ReportResp: the Report itself with the response method, back where it came from; without
  // it the SM sends the Report again.
  const ib_mad_addr_t* from = umad_get_mad_addr(buf_.data());
  const uint16_t lid = ntohs(from->lid);
  const int qp = static_cast<int>(ntohl(from->qpn));
  mad()[3] = kMethodReportResp;
  umad_set_addr(buf_.data(), lid, qp, 0, kQp1Qkey);
  // Unanswered, the SM sends it again: a duplicate, nothing worse.
  (void)umad_send(port_id_, agent_, buf_.data(), static_cast<int>(kMadSize), 0, 0);
  auto decoded = decode_notice(notice);
  if (!decoded) {
    ++untranslatable_;
    if (events.untranslatable) events.untranslatable(lid, decoded.error());
    return;
  }
  if (events.notice) events.notice(std::move(*decoded));
}

void LibUmadSubscription::receive(std::chrono::milliseconds wait,
                                  const SmSubscriptionEvents& events) {
  for (int timeout = static_cast<int>(wait.count());; timeout = 0) {
    int length = static_cast<int>(kMadSize);
    if (umad_recv(port_id_, buf_.data(), &length, timeout) < 0) return;
    const int status = umad_status(buf_.data());
    const uint8_t* m = mad();
    // The SA sends a MAD only as long as its attribute needs (a GetResp(InformInfo): 92 bytes);
    // the buffer past it is zeroed, so a short Report reads as a Notice of zeros.
    if (length < static_cast<int>(kSaData) || m[1] != kSaClass) continue;
    if (length < static_cast<int>(kMadSize))
      std::memset(mad() + length, 0, kMadSize - static_cast<size_t>(length));
    if (m[3] == kMethodReport && get16(m + 16) == kAttrNotice && status == 0) {
      answer_report(m, events);
    } else if (m[3] == kMethodGetResp || (m[3] == kMethodSet && status != 0)) {
      answer_set(m, status, events);  // a Set coming back is our own, undelivered
    }
  }
}

void LibUmadSubscription::run(const std::atomic<bool>& stop, const SmSubscriptionEvents& events) {
  name_this_thread("ibp-sm-traps");
  uint16_t known_lid = 0;
  uint16_t lid = 0;
  auto next_round = Clock::now();
  auto next_lid_check = next_round;
  while (!stop.load()) {
    const auto now = Clock::now();
    if (now >= next_lid_check) {  // the port's attributes are files to read: once a second
      lid = sm_lid();
      next_lid_check = now + std::chrono::seconds(1);
    }
    if (lid != 0 && lid != known_lid) {
      if (events.round) events.round(lid, known_lid == 0 ? "start" : "sm_changed");
      known_lid = lid;
      next_round = now;
    }
    if (lid != 0 && now >= next_round) {
      subscribe(lid, events);
      next_round = now + options_.refresh;
    }
    receive(std::chrono::milliseconds(100), events);
    expire_sets(Clock::now(), events);
  }
}

}  // namespace

Result<std::unique_ptr<SmSubscription>> SmSubscription::open(const SmSubscriptionOptions& options) {
  if (umad_init() < 0) return Err("cannot initialise libibumad");
  const int port_id =
      umad_open_port(options.ca.empty() ? nullptr : options.ca.c_str(), options.ca_port);
  if (port_id < 0) {
    return Err("cannot open {} port {}: {}", options.ca.empty() ? "the first HCA" : options.ca,
               options.ca_port, std::strerror(-port_id));
  }
  // Report is the method the SM's MADs arrive with: the kernel hands them to this agent.
  long methods[16 / sizeof(long)] = {};
  methods[kMethodReport / (8 * sizeof(long))] |= 1L << (kMethodReport % (8 * sizeof(long)));
  const int agent = umad_register(port_id, kSaClass, kSaClassVersion, 0, methods);
  if (agent < 0) {
    umad_close_port(port_id);
    return Err("cannot register for the SA's Reports (class 0x03): {}", std::strerror(-agent));
  }
  return std::unique_ptr<SmSubscription>(
      std::make_unique<LibUmadSubscription>(options, port_id, agent));
}

}  // namespace ibpulse::collector
