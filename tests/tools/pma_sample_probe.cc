// pma_sample_probe: a test-only PMA client for the sampling attributes that perfquery cannot
// drive (it only reads PortSamplesControl). Run it attached to the fabric, e.g.
//   ibpulse sim exec --name N -- pma_sample_probe LID PORT --set --interval 100000
//       --select 0x0001 --select 0x4302   (one command line)
// Modes (one per run):
//   (default)      Get PortSamplesControl and print it.
//   --set          Set PortSamplesControl (--tag, --start, --interval, --select up to 15 times),
//                  print the Set's reply, poll the control every --poll-ms until SampleStatus
//                  is 0 (or --timeout-ms), then print PortSamplesResult and ResultExtended.
//   --results      Get PortSamplesResult and PortSamplesResultExtended only.
//   --ext-speeds   Get PortExtendedSpeedsCounters.
//   --get ATTR     Get any PMA attribute and print only the MAD status.
// Output: one `key=value` line per field (numbers in decimal except tags/selects/status in
// hex), stable for tests to parse. Exit status 0 when every MAD got a reply (whatever its MAD
// status), 1 when one timed out, 2 on a usage error.

#include <fmt/core.h>
#include <infiniband/mad.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mad_layout.h"

namespace {

using ibpulse::tools::get_be;
using ibpulse::tools::kPmaDataSize;
using ibpulse::tools::put_be;
using Data = std::array<uint8_t, kPmaDataSize>;

constexpr uint32_t kNoReply = 0xFFFFFFFFu;

struct Options {
  int lid = 0;
  unsigned port = 0;
  enum class Mode { kControl, kSet, kResults, kExtSpeeds, kGet } mode = Mode::kControl;
  uint16_t tag = 0x1234;
  uint32_t start = 0;
  uint32_t interval = 100000;
  std::vector<uint16_t> selects;
  unsigned get_attr = 0;
  int poll_ms = 5;
  int timeout_ms = 10000;
};

[[noreturn]] void usage(const std::string& message) {
  fmt::print(stderr, "pma_sample_probe: {}\n", message);
  fmt::print(stderr,
             "usage: pma_sample_probe LID PORT [--set [--tag T] [--start N] [--interval N] "
             "[--select S]...] [--results] [--ext-speeds] [--get ATTR] [--poll-ms MS] "
             "[--timeout-ms MS]\n");
  std::exit(2);
}

uint64_t number(std::string_view text, uint64_t max) {
  const std::string s(text);
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0' || v > max) usage(fmt::format("bad number '{}'", s));
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  std::vector<std::string_view> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) usage(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "--set") {
      o.mode = Options::Mode::kSet;
    } else if (arg == "--results") {
      o.mode = Options::Mode::kResults;
    } else if (arg == "--ext-speeds") {
      o.mode = Options::Mode::kExtSpeeds;
    } else if (arg == "--get") {
      o.mode = Options::Mode::kGet;
      o.get_attr = static_cast<unsigned>(number(value(), 0xFFFF));
    } else if (arg == "--tag") {
      o.tag = static_cast<uint16_t>(number(value(), 0xFFFF));
    } else if (arg == "--start") {
      o.start = static_cast<uint32_t>(number(value(), 0xFFFFFFFFu));
    } else if (arg == "--interval") {
      o.interval = static_cast<uint32_t>(number(value(), 0xFFFFFFFFu));
    } else if (arg == "--select") {
      if (o.selects.size() == 15) usage("at most 15 --select");
      o.selects.push_back(static_cast<uint16_t>(number(value(), 0xFFFF)));
    } else if (arg == "--poll-ms") {
      o.poll_ms = static_cast<int>(number(value(), 60000));
    } else if (arg == "--timeout-ms") {
      o.timeout_ms = static_cast<int>(number(value(), 3600000));
    } else if (!arg.empty() && arg[0] == '-') {
      usage(fmt::format("unknown option '{}'", arg));
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2) usage("LID and PORT are required");
  o.lid = static_cast<int>(number(positional[0], 0xBFFF));
  o.port = static_cast<unsigned>(number(positional[1], 0xFF));
  return o;
}

class Probe {
 public:
  explicit Probe(const Options& o) : opts_(o) {
    int classes[] = {IB_PERFORMANCE_CLASS};
    port_ = mad_rpc_open_port(nullptr, 0, classes, 1);
    if (port_ == nullptr) {
      fmt::print(stderr, "pma_sample_probe: cannot open a MAD port (attached to the fabric?)\n");
      std::exit(1);
    }
    mad_rpc_set_timeout(port_, 1000);
    mad_rpc_set_retries(port_, 2);
    ib_portid_set(&dest_, o.lid, 1, static_cast<int>(IB_DEFAULT_QP1_QKEY));
  }
  ~Probe() { mad_rpc_close_port(port_); }
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // One PMA MAD; nullopt when no reply came back. `status` receives the MAD status.
  std::optional<Data> rpc(int method, unsigned attr, Data payload, uint32_t& status) {
    payload[1] = static_cast<uint8_t>(opts_.port);  // PortSelect, byte 1 of every attribute
    ib_rpc_t rpc{};
    rpc.mgtclass = IB_PERFORMANCE_CLASS;
    rpc.method = method;
    rpc.attr.id = attr;
    rpc.attr.mod = 0;
    rpc.rstatus = kNoReply;
    rpc.timeout = 1000;
    rpc.datasz = IB_PC_DATA_SZ;
    rpc.dataoffs = IB_PC_DATA_OFFS;
    Data reply{};
    mad_rpc(port_, &rpc, &dest_, payload.data(), reply.data());
    status = rpc.rstatus;
    if (status == kNoReply) {
      fmt::print("error=no reply to method 0x{:02x} attr 0x{:04x}\n", method, attr);
      return std::nullopt;
    }
    return reply;
  }

 private:
  const Options& opts_;
  ibmad_port* port_ = nullptr;
  ib_portid_t dest_{};
};

unsigned control_status(const Data& d) {
  return d[11] & 0x3u;
}

void print_control(const std::string& prefix, const Data& d) {
  fmt::print("{}.port_select={}\n", prefix, d[1]);
  fmt::print("{}.tick={}\n", prefix, d[2]);
  fmt::print("{}.counter_width={}\n", prefix, d[3] & 0x7u);
  const uint64_t masks0to9 = get_be(&d[4], 4);
  const uint64_t masks10to14 = get_be(&d[8], 2);
  for (unsigned i = 0; i < 15; ++i) {
    const uint64_t m = i < 10 ? masks0to9 >> (27 - 3 * i) : masks10to14 >> (12 - 3 * (i - 10));
    fmt::print("{}.counter_mask{}={}\n", prefix, i, m & 0x7u);
  }
  fmt::print("{}.sample_mechanisms={}\n", prefix, d[10]);
  fmt::print("{}.sample_status={}\n", prefix, control_status(d));
  fmt::print("{}.option_mask=0x{:x}\n", prefix, get_be(&d[12], 8));
  fmt::print("{}.sample_start={}\n", prefix, get_be(&d[28], 4));
  fmt::print("{}.sample_interval={}\n", prefix, get_be(&d[32], 4));
  fmt::print("{}.tag=0x{:04x}\n", prefix, get_be(&d[36], 2));
  for (unsigned i = 0; i < 15; ++i) {
    fmt::print("{}.counter_select{}=0x{:04x}\n", prefix, i, get_be(&d[38 + 2 * i], 2));
  }
}

void print_results(const Data& r, const Data& x) {
  fmt::print("result.tag=0x{:04x}\n", get_be(r.data(), 2));
  fmt::print("result.sample_status={}\n", get_be(&r[2], 2) & 0x3u);
  for (unsigned i = 0; i < 15; ++i)
    fmt::print("result.counter{}={}\n", i, get_be(&r[4 + 4 * i], 4));
  fmt::print("result_ext.tag=0x{:04x}\n", get_be(x.data(), 2));
  fmt::print("result_ext.sample_status={}\n", get_be(&x[2], 2) & 0x3u);
  fmt::print("result_ext.extended_width=0x{:08x}\n", get_be(&x[4], 4));
  for (unsigned i = 0; i < 15; ++i) {
    fmt::print("result_ext.counter{}={}\n", i, get_be(&x[8 + 8 * i], 8));
  }
}

void print_ext_speeds(const Data& d) {
  fmt::print("ext_speeds.port_select={}\n", d[1]);
  fmt::print("ext_speeds.counter_select=0x{:016x}\n", get_be(&d[8], 8));
  fmt::print("ext_speeds.sync_header_error_counter={}\n", get_be(&d[16], 2));
  fmt::print("ext_speeds.unknown_block_counter={}\n", get_be(&d[18], 2));
  for (unsigned l = 0; l < 12; ++l) {
    fmt::print("ext_speeds.error_detection_lane{}={}\n", l, get_be(&d[20 + 2 * l], 2));
  }
  for (unsigned l = 0; l < 12; ++l) {
    fmt::print("ext_speeds.fec_correctable_lane{}={}\n", l, get_be(&d[44 + 4 * l], 4));
  }
  for (unsigned l = 0; l < 12; ++l) {
    fmt::print("ext_speeds.fec_uncorrectable_lane{}={}\n", l, get_be(&d[92 + 4 * l], 4));
  }
}

int run_results(Probe& probe) {
  uint32_t st = 0;
  auto r = probe.rpc(IB_MAD_METHOD_GET, ibpulse::tools::kAttrPortSamplesResult, Data{}, st);
  if (!r) return 1;
  fmt::print("result.mad_status=0x{:04x}\n", st);
  auto x = probe.rpc(IB_MAD_METHOD_GET, ibpulse::tools::kAttrPortSamplesResultExt, Data{}, st);
  if (!x) return 1;
  fmt::print("result_ext.mad_status=0x{:04x}\n", st);
  print_results(*r, *x);
  return 0;
}

int run_set(Probe& probe, const Options& o) {
  using Clock = std::chrono::steady_clock;
  Data set{};
  put_be(&set[28], 4, o.start);
  put_be(&set[32], 4, o.interval);
  put_be(&set[36], 2, o.tag);
  for (std::size_t i = 0; i < o.selects.size(); ++i)
    put_be(&set[38 + 2 * i], 2, o.selects[i]);
  uint32_t st = 0;
  const auto t0 = Clock::now();
  auto reply = probe.rpc(IB_MAD_METHOD_SET, ibpulse::tools::kAttrPortSamplesControl, set, st);
  if (!reply) return 1;
  fmt::print("set.mad_status=0x{:04x}\n", st);
  print_control("set", *reply);
  // Poll until done, printing each change of SampleStatus with its time since the Set.
  unsigned last = control_status(*reply);
  fmt::print("poll.status={} at_ms=0\n", last);
  while (true) {
    auto c = probe.rpc(IB_MAD_METHOD_GET, ibpulse::tools::kAttrPortSamplesControl, Data{}, st);
    if (!c) return 1;
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    const unsigned now = control_status(*c);
    if (now != last) fmt::print("poll.status={} at_ms={}\n", now, ms);
    last = now;
    if (now == 0) break;
    if (ms > o.timeout_ms) {
      fmt::print("error=sample not done after {} ms\n", ms);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(o.poll_ms));
  }
  return run_results(probe);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Probe probe(o);
  uint32_t st = 0;
  switch (o.mode) {
    case Options::Mode::kControl: {
      auto c = probe.rpc(IB_MAD_METHOD_GET, ibpulse::tools::kAttrPortSamplesControl, Data{}, st);
      if (!c) return 1;
      fmt::print("control.mad_status=0x{:04x}\n", st);
      print_control("control", *c);
      return 0;
    }
    case Options::Mode::kSet:
      return run_set(probe, o);
    case Options::Mode::kResults:
      return run_results(probe);
    case Options::Mode::kExtSpeeds: {
      auto d = probe.rpc(IB_MAD_METHOD_GET, ibpulse::tools::kAttrPortExtSpeedsCounters, Data{}, st);
      if (!d) return 1;
      fmt::print("ext_speeds.mad_status=0x{:04x}\n", st);
      print_ext_speeds(*d);
      return 0;
    }
    case Options::Mode::kGet: {
      auto d = probe.rpc(IB_MAD_METHOD_GET, o.get_attr, Data{}, st);
      if (!d) return 1;
      fmt::print("get.mad_status=0x{:04x}\n", st);
      return 0;
    }
  }
  return 2;
}
