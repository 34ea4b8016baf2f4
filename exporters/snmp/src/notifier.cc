#include "notifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "net_snmp.h"
#include "transport.h"
#include "varbind_codec.h"

namespace ibpulse::exporters::snmp::detail {
namespace {

constexpr size_t kInFlight = 8;  // informs awaiting acknowledgement, per sink
constexpr std::chrono::seconds kFirstBackoff{1}, kMaxBackoff{10};

// net-snmp's form of a sink's address (validate() accepted it before).
std::string peername(const std::string& address) {
  auto t = parse_transport(address, TransportUse::kSink, "trap sink");
  return t ? t->spec() : address;
}

std::vector<u_char> engine_bytes(const std::string& hex) {  // "0x..."
  std::vector<u_char> out;
  for (size_t i = 2; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<u_char>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

netsnmp_pdu* build_pdu(int command, const std::vector<VarBind>& varbinds) {
  netsnmp_pdu* pdu = snmp_pdu_create(command);
  std::vector<::oid> name;
  for (const VarBind& vb : varbinds) {
    name.assign(vb.name.begin(), vb.name.end());
    set_value(snmp_add_null_var(pdu, name.data(), name.size()), vb);
  }
  return pdu;
}

}  // namespace

struct Notifier::Sink {
  struct Item {
    Varbinds varbinds;
    uint32_t rounds = 0;  // times sent
    uint64_t seq = 0;     // the order the notifications were made in
  };
  // One per request handed to net-snmp (its callback's `magic`), which calls back exactly once
  // with the outcome: answered, or timed out (also when the session closes).
  struct Request {
    Sink* sink = nullptr;
    bool probe = false;
    Item item;
  };

  TrapSink config;
  size_t capacity = 0;
  const Log* log = nullptr;
  SinkCounters counters;
  netsnmp_session* session = nullptr;
  std::deque<Item> queue;  // informs to send, oldest (lowest seq) first
  uint64_t next_seq = 0;
  size_t in_flight = 0;
  bool probing = false, engine_known = false, closing = false;
  bool failing = false;  // said so in the log; said again when it answers
  Clock::time_point next_try{};
  Clock::duration backoff = kFirstBackoff;

  std::string name() const {
    return fmt::format("{} ({})", config.address, to_string(config.kind));
  }

  void say(int priority, const std::string& message) const {
    if (*log) (*log)(priority, message);
  }

  void enqueue(Varbinds varbinds) {
    queue.push_back({std::move(varbinds), 0, next_seq++});
    trim();
  }
  // An inform sent but not acknowledged goes back in its place: several time out together, and
  // a clear must never overtake the raise it clears.
  void requeue(Item item) {
    const auto at = std::upper_bound(queue.begin(), queue.end(), item.seq,
                                     [](uint64_t seq, const Item& i) { return seq < i.seq; });
    queue.insert(at, std::move(item));
    trim();
  }
  void trim() {
    for (; queue.size() > capacity; queue.pop_front())
      counters.dropped.fetch_add(1, std::memory_order_relaxed);
  }

  // Logged once per outage, not per packet.
  void round_failed(const char* why) {
    counters.failed.fetch_add(1, std::memory_order_relaxed);
    const Clock::time_point now = Clock::now();
    if (now >= next_try) {
      next_try = now + backoff;
      backoff = std::min<Clock::duration>(backoff * 2, kMaxBackoff);
    }
    if (failing) return;
    failing = true;
    say(4, fmt::format("notification sink {}: {}; {} queued, tried again from time to time", name(),
                       why, queue.size()));
  }
  void answered() {
    backoff = kFirstBackoff;
    next_try = {};
    if (!failing) return;
    failing = false;
    say(5, fmt::format("notification sink {}: answers again", name()));
  }

  static int on_response(int op, netsnmp_session* session, int /*reqid*/, netsnmp_pdu* pdu,
                         void* magic) {
    // net-snmp also calls with NETSNMP_CALLBACK_OP_RESEND (a retransmission) and _SEC_ERROR
    // (a response that failed its checks): the request stays outstanding.
    if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && op != NETSNMP_CALLBACK_OP_TIMED_OUT) return 0;
    std::unique_ptr<Request> request(static_cast<Request*>(magic));
    Sink& sink = *request->sink;
    if (sink.closing) return 1;
    const bool received = op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && pdu != nullptr;
    if (request->probe) {
      sink.probing = false;
      if (received && pdu->securityEngineIDLen > 0) {
        if (session->securityEngineIDLen == 0) {  // net-snmp usually copied it already
          session->securityEngineID =
              static_cast<u_char*>(netsnmp_memdup(pdu->securityEngineID, pdu->securityEngineIDLen));
          session->securityEngineIDLen = pdu->securityEngineIDLen;
        }
        usm_create_user_from_session(session);  // keys localized to that engineID
        sink.engine_known = true;
        sink.answered();
      } else {
        sink.round_failed("no answer to engineID discovery");
      }
      return 1;
    }
    --sink.in_flight;
    if (received && pdu->command == SNMP_MSG_RESPONSE) {
      sink.counters.acknowledged.fetch_add(1, std::memory_order_relaxed);
      sink.answered();
      return 1;
    }
    // Unacknowledged, or a Report (unknown user, wrong keys, a new engineID): again later.
    // Unanswered too: the receiver may have restarted with another engineID (its Reports then
    // reach net-snmp only as security errors), so the next round discovers it again.
    if (!received || (pdu->command == SNMP_MSG_REPORT &&
                      snmpv3_get_report_type(pdu) == SNMPERR_UNKNOWN_ENG_ID)) {
      sink.forget_engine();
    }
    sink.requeue(std::move(request->item));
    sink.round_failed(received ? "refused an inform (check its user and passwords)"
                               : "does not acknowledge informs");
    return 1;
  }

  void forget_engine() {
    engine_known = false;
    free(session->securityEngineID);
    session->securityEngineID = nullptr;
    session->securityEngineIDLen = 0;
    session->flags &= ~static_cast<u_long>(SNMP_FLAGS_USER_CREATED);
  }

  void send_trap(const Varbinds& varbinds) {
    netsnmp_pdu* pdu = build_pdu(SNMP_MSG_TRAP2, *varbinds);
    if (snmp_send(session, pdu) == 0) {
      snmp_free_pdu(pdu);
      round_failed("cannot send to it");
      return;
    }
    counters.sent.fetch_add(1, std::memory_order_relaxed);
    if (failing) answered();
  }

  void send_probe() {
    // What net-snmp's own probe is: an empty GET, noAuthNoPriv, no user.
    netsnmp_pdu* pdu = snmp_pdu_create(SNMP_MSG_GET);
    pdu->version = SNMP_VERSION_3;
    pdu->securityName = strdup("");
    pdu->securityNameLen = 0;
    pdu->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
    pdu->securityModel = SNMP_SEC_MODEL_USM;
    auto* request = new Request{this, true, {}};
    if (snmp_async_send(session, pdu, &Sink::on_response, request) == 0) {
      snmp_free_pdu(pdu);
      delete request;
      round_failed("cannot send to it");
      return;
    }
    probing = true;
  }

  void pump(Clock::time_point now) {
    if (queue.empty() || now < next_try) return;
    if (!engine_known) {
      if (!probing) send_probe();
      return;
    }
    while (in_flight < kInFlight && !queue.empty()) {
      Item item = std::move(queue.front());
      queue.pop_front();
      netsnmp_pdu* pdu = build_pdu(SNMP_MSG_INFORM, *item.varbinds);
      auto* request = new Request{this, false, {item.varbinds, item.rounds + 1, item.seq}};
      if (snmp_async_send(session, pdu, &Sink::on_response, request) == 0) {
        snmp_free_pdu(pdu);
        delete request;
        requeue(std::move(item));
        round_failed("cannot send to it");
        return;
      }
      ++in_flight;
      (item.rounds == 0 ? counters.sent : counters.retried).fetch_add(1, std::memory_order_relaxed);
    }
  }

  Status open(const std::vector<u_char>& engine_id) {
    netsnmp_session in;
    snmp_sess_init(&in);
    std::string peer = peername(config.address);
    in.peername = peer.data();
    in.timeout = static_cast<long>(config.timeout.count()) * 1000;  // microseconds
    in.retries = static_cast<int>(config.retries);
    std::vector<u_char> id = engine_id;
    if (config.kind == TrapSink::Kind::kV2cTrap) {
      in.version = SNMP_VERSION_2c;
      in.community = reinterpret_cast<u_char*>(config.community.data());
      in.community_len = config.community.size();
    } else {
      const SnmpUser& u = config.user;
      in.version = SNMP_VERSION_3;
      in.securityName = const_cast<char*>(u.name.c_str());
      in.securityNameLen = u.name.size();
      in.securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
      in.securityModel = SNMP_SEC_MODEL_USM;
      size_t auth_len = 0;
      size_t priv_len = 0;
      oid* auth = sc_get_auth_oid(usm_lookup_auth_type(u.auth_protocol.c_str()), &auth_len);
      oid* priv = sc_get_priv_oid(usm_lookup_priv_type(u.priv_protocol.c_str()), &priv_len);
      if (auth == nullptr || priv == nullptr)
        return Err("notification sink {}: net-snmp has no {}/{}", name(), u.auth_protocol,
                   u.priv_protocol);
      in.securityAuthProto = auth;
      in.securityAuthProtoLen = auth_len;
      in.securityPrivProto = priv;
      in.securityPrivProtoLen = priv_len;
      in.securityAuthKeyLen = USM_AUTH_KU_LEN;
      in.securityPrivKeyLen = USM_PRIV_KU_LEN;
      const std::string& priv_password =
          u.priv_password.empty() ? u.auth_password : u.priv_password;
      auto* a = reinterpret_cast<u_char*>(const_cast<char*>(u.auth_password.c_str()));
      auto* p = reinterpret_cast<u_char*>(const_cast<char*>(priv_password.c_str()));
      if (generate_Ku(auth, static_cast<u_int>(auth_len), a, u.auth_password.size(),
                      in.securityAuthKey, &in.securityAuthKeyLen) != SNMPERR_SUCCESS ||
          generate_Ku(auth, static_cast<u_int>(auth_len), p, priv_password.size(),
                      in.securityPrivKey, &in.securityPrivKeyLen) != SNMPERR_SUCCESS) {
        return Err("notification sink {}: cannot make the user's keys", name());
      }
      // Never net-snmp's synchronous engineID probe (notifier.h).
      in.flags |= SNMP_FLAGS_DONT_PROBE;
      if (config.kind == TrapSink::Kind::kV3Trap) {  // we are the authoritative engine
        in.securityEngineID = id.data();
        in.securityEngineIDLen = id.size();
        in.contextEngineID = id.data();
        in.contextEngineIDLen = id.size();
      }
    }
    session = snmp_open(&in);
    if (session == nullptr) {
      int sys_errno = 0;
      int snmp_errno = 0;
      char* text = nullptr;
      snmp_error(&in, &sys_errno, &snmp_errno, &text);
      const std::string why = text != nullptr ? text : "unknown error";
      free(text);
      return Err("cannot open notification sink {}: {}", name(), why);
    }
    // snmp_open() clears the flag once the session is added; every send checks it again.
    if (config.kind == TrapSink::Kind::kV3Inform) session->flags |= SNMP_FLAGS_DONT_PROBE;
    engine_known = config.kind != TrapSink::Kind::kV3Inform;
    return Ok{};
  }
};

Notifier::Notifier(const std::vector<TrapSink>& sinks, size_t queue_capacity, Log log)
    : log_(std::move(log)) {
  for (const TrapSink& config : sinks) {
    auto sink = std::make_unique<Sink>();
    sink->config = config;
    sink->capacity = std::max<size_t>(queue_capacity, 1);
    sink->log = &log_;
    sinks_.push_back(std::move(sink));
  }
}

Notifier::~Notifier() = default;

Status Notifier::open(const std::string& engine_id) {
  const std::vector<u_char> id = engine_bytes(engine_id);
  for (auto& sink : sinks_) {
    if (Status s = sink->open(id); !s.ok()) return s;
  }
  return Ok{};
}

void Notifier::send(const Varbinds& varbinds) {
  for (auto& sink : sinks_) {
    if (sink->session == nullptr) continue;
    if (sink->config.kind == TrapSink::Kind::kV3Inform) {
      sink->enqueue(varbinds);
    } else {
      sink->send_trap(varbinds);
    }
  }
}

void Notifier::pump(Clock::time_point now) {
  for (auto& sink : sinks_) {
    if (sink->session != nullptr && sink->config.kind == TrapSink::Kind::kV3Inform) sink->pump(now);
  }
}

void Notifier::close() {
  for (auto& sink : sinks_) {
    if (sink->session == nullptr) continue;
    sink->closing = true;  // snmp_close() calls back for every outstanding request
    snmp_close(sink->session);
    sink->session = nullptr;
  }
}

const TrapSink& Notifier::sink(size_t i) const {
  return sinks_[i]->config;
}

const SinkCounters& Notifier::counters(size_t i) const {
  return sinks_[i]->counters;
}

}  // namespace ibpulse::exporters::snmp::detail
