// sm_report: sends one SA Report to a LID, as a subnet manager forwards a trap to a subscriber
// of its InformInfo, and waits for the subscriber's ReportResp. It stands in for the SM where
// the simulator cannot make the trap happen: ibsim's SMAs issue traps 128 and 144 only.
//
//   sm_report --to LID --trap N [--issuer-lid L] [--producer T] [--vendor]
//             [--lid L] [--port P] [--cap-mask M] [--guid G] [--method M] [--attr-id A]
//             [--attr-mod A] [--key K] [--lid2 L] [--sl S] [--qp1 Q] [--qp2 Q]
//             [--gid1 HEX32] [--gid2 HEX32] [--switch-lid L] [--data-valid D] [--timeout MS]
//
// Numbers in C syntax (0x.. for hex), GIDs as 32 hex digits. --vendor sends a vendor-specific
// notice instead of a generic one. The Notice (IBA 14.2.5.1) is built here from the trap
// tables of the specification, not from ibpulse's decoder, so that a test compares the two:
//   byte 0 IsGeneric + Type, 1-3 ProducerType, 4-5 TrapNumber, 6-7 IssuerLID, 10-63
//   DataDetails (by trap, offsets within it: 128 LID 0; 129-131 LID 2, port 4; 144 LID 2,
//   capability mask 6; 145 LID 2, system image GUID 6; 256 LID 2, method 6, attribute ID 8,
//   modifier 10, M_Key 14; 257/258 LID1 2, LID2 4, key 6, SL (high nibble) 10 with QP1 (24
//   bits) 11, QP2 15, GID1 18, GID2 34; 259 DataValid 0, LID1 2, LID2 4, P_Key 6, SL 8 with
//   QP1 9, QP2 13, GID1 16, GID2 32, switch LID 48, port 50), 64-79 IssuerGID.
// Run it attached to the fabric (`ibpulse sim exec`); the subscriber must hold the SM role at
// its node (SIM_SET_ISSM=1), for ibsim hands a Report to no other client.
// Exit status: 0 answered, 1 not answered (or undelivered), 2 usage or environment.

#include <fmt/core.h>
#include <infiniband/umad.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "mad_layout.h"

namespace {

using ibpulse::tools::kMadSize;
using ibpulse::tools::put_be;

constexpr size_t kSaData = 56;  // the SA attribute after the SA header
constexpr size_t kDetails = kSaData + 10;
constexpr uint16_t kAttrNotice = 0x0002;
constexpr int kQp1Qkey = static_cast<int>(0x80010000u);

[[noreturn]] void usage(const std::string& why) {
  fmt::print(stderr, "sm_report: {}\nusage: sm_report --to LID --trap N [--FIELD VALUE ...]\n",
             why);
  std::exit(2);
}

struct Args {
  std::map<std::string, std::string> values;
  bool vendor = false;

  bool has(const std::string& k) const { return values.contains(k); }
  uint64_t number(const std::string& k, uint64_t otherwise = 0) const {
    const auto it = values.find(k);
    if (it == values.end()) return otherwise;
    char* end = nullptr;
    const uint64_t v = std::strtoull(it->second.c_str(), &end, 0);
    if (end == it->second.c_str() || *end != '\0') usage("--" + k + ": not a number");
    return v;
  }
  std::array<uint8_t, 16> gid(const std::string& k) const {
    std::array<uint8_t, 16> g{};
    const auto it = values.find(k);
    if (it == values.end()) return g;
    if (it->second.size() != 32) usage("--" + k + ": 32 hex digits");
    for (size_t i = 0; i < 16; ++i)
      g[i] = static_cast<uint8_t>(std::stoul(it->second.substr(2 * i, 2), nullptr, 16));
    return g;
  }
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--vendor") {
      a.vendor = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0 || i + 1 >= argc) usage("bad argument " + flag);
    a.values[flag.substr(2)] = argv[++i];
  }
  if (!a.has("to") || !a.has("trap")) usage("--to and --trap are required");
  return a;
}

void put_gid(uint8_t* p, const std::array<uint8_t, 16>& g) {
  for (size_t i = 0; i < g.size(); ++i)
    p[i] = g[i];
}

// DataDetails of `trap` from the flags.
void details(uint8_t* d, uint16_t trap, const Args& a) {
  switch (trap) {
    case 128:
      put_be(d, 2, a.number("lid"));
      break;
    case 129:
    case 130:
    case 131:
      put_be(d + 2, 2, a.number("lid"));
      d[4] = static_cast<uint8_t>(a.number("port"));
      break;
    case 144:
      put_be(d + 2, 2, a.number("lid"));
      put_be(d + 6, 4, a.number("cap-mask"));
      break;
    case 145:
      put_be(d + 2, 2, a.number("lid"));
      put_be(d + 6, 8, a.number("guid"));
      break;
    case 256:
      put_be(d + 2, 2, a.number("lid"));
      d[6] = static_cast<uint8_t>(a.number("method"));
      put_be(d + 8, 2, a.number("attr-id"));
      put_be(d + 10, 4, a.number("attr-mod"));
      put_be(d + 14, 8, a.number("key"));
      break;
    case 257:
    case 258:
      put_be(d + 2, 2, a.number("lid"));
      put_be(d + 4, 2, a.number("lid2"));
      put_be(d + 6, 4, a.number("key"));
      put_be(d + 10, 4, a.number("sl") << 28 | (a.number("qp1") & 0xffffff));
      put_be(d + 14, 4, a.number("qp2") & 0xffffff);
      put_gid(d + 18, a.gid("gid1"));
      put_gid(d + 34, a.gid("gid2"));
      break;
    case 259:
      put_be(d, 2, a.number("data-valid"));
      put_be(d + 2, 2, a.number("lid"));
      put_be(d + 4, 2, a.number("lid2"));
      put_be(d + 6, 2, a.number("key"));
      put_be(d + 8, 4, a.number("sl") << 28 | (a.number("qp1") & 0xffffff));
      put_be(d + 12, 4, a.number("qp2") & 0xffffff);
      put_gid(d + 16, a.gid("gid1"));
      put_gid(d + 32, a.gid("gid2"));
      put_be(d + 48, 2, a.number("switch-lid"));
      d[50] = static_cast<uint8_t>(a.number("port"));
      break;
    default:
      break;  // a trap IB-SMA-MIB does not translate: no details
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const auto trap = static_cast<uint16_t>(a.number("trap"));
  if (umad_init() < 0) usage("cannot initialise libibumad");
  const int port = umad_open_port(nullptr, 0);
  if (port < 0) usage("cannot open the HCA port (run it under `ibpulse sim exec`)");
  const int agent = umad_register(port, ibpulse::tools::kClassSa, 2, 0, nullptr);
  if (agent < 0) usage("cannot register the SA class");

  std::vector<uint8_t> buf(umad_size() + kMadSize);
  auto* mad = static_cast<uint8_t*>(umad_get_mad(buf.data()));
  mad[0] = 1;
  mad[1] = ibpulse::tools::kClassSa;
  mad[2] = 2;
  mad[3] = ibpulse::tools::kMethodReport;
  const uint32_t tid = 0x5a000000u | (static_cast<uint32_t>(std::rand()) & 0xffffff);
  put_be(mad + 12, 4, tid);
  put_be(mad + ibpulse::tools::kOffAttrId, 2, kAttrNotice);
  uint8_t* notice = mad + kSaData;
  notice[0] = static_cast<uint8_t>((a.vendor ? 0 : 0x80) | (a.number("type", 4) & 0x7f));
  put_be(notice + 1, 3, a.number("producer", 2));
  put_be(notice + 4, 2, trap);
  put_be(notice + 6, 2, a.number("issuer-lid", a.number("lid")));
  details(mad + kDetails, trap, a);
  put_gid(notice + 64, a.gid("issuer-gid"));

  const int timeout_ms = static_cast<int>(a.number("timeout", 2000));
  umad_set_addr(buf.data(), static_cast<int>(a.number("to")), 1, 0, kQp1Qkey);
  if (umad_send(port, agent, buf.data(), static_cast<int>(kMadSize), timeout_ms, 0) < 0) {
    fmt::print(stderr, "sm_report: cannot send\n");
    return 1;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < until) {
    int length = static_cast<int>(kMadSize);
    if (umad_recv(port, buf.data(), &length, 100) < 0) continue;
    const uint32_t got = static_cast<uint32_t>(ibpulse::tools::get_be(mad + 12, 4));
    if (got != tid) continue;
    if (umad_status(buf.data()) != 0) {
      fmt::print(stderr, "sm_report: undelivered (umad status {})\n", umad_status(buf.data()));
      return 1;
    }
    if (mad[3] == (ibpulse::tools::kMethodReport | ibpulse::tools::kMethodResponseBit)) {
      fmt::print("ReportResp from LID {}\n", a.number("to"));
      return 0;
    }
  }
  fmt::print(stderr, "sm_report: no ReportResp within {} ms\n", timeout_ms);
  return 1;
}
