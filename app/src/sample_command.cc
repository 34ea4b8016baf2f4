// `ibpulse sample`: one PortSamples measurement on one port (per-VL traffic and friends).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "config_flags.h"
#include "ibpulse/base/duration.h"
#include "ibpulse/collector/environment.h"
#include "ibpulse/collector/sampler.h"

namespace ibpulse::cli {
namespace {

struct SampleArgs {
  config::FlagValues flags;
  unsigned lid = 0;
  unsigned port = 0;
  std::vector<std::string> counters = collector::default_sample_counters();
  uint32_t interval = 1000000;
  uint32_t start = 0;
  bool take_over = false;
  bool json = false;
  std::string timeout = "10s";
};

int run_sample(const SampleArgs& a) {
  collector::SampleRequest request;
  request.lid = static_cast<uint16_t>(a.lid);
  request.port = static_cast<uint8_t>(a.port);
  request.interval = a.interval;
  request.start = a.start;
  request.take_over = a.take_over;
  auto timeout = parse_duration(a.timeout);
  if (!timeout) return fail(fmt::format("--timeout: {}", timeout.error()));
  request.timeout = *timeout;
  for (const auto& name : a.counters) {
    auto code = collector::parse_select(name);
    if (!code) {
      return fail(
          fmt::format("unknown counter '{}': use PortXmitData, PortRcvData, PortXmitPkts, "
                      "PortRcvPkts, PortXmitWait, Port{{Xmit,Rcv}}{{Data,Pkt}}VL<0-15> or "
                      "a 0x code",
                      name));
    }
    request.selects.push_back(*code);
  }
  collector::MadEngineOptions options;
  if (collector::current_mad_environment().simulated) options.window = 64;
  auto fabric = fabric_options(a.flags);
  if (!fabric) return fail(fabric.error());
  auto engine =
      collector::MadEngine::open(fabric->discovery.ca, fabric->discovery.ca_port, options);
  if (!engine) return fail(engine.error());
  auto result = collector::run_sample(**engine, request);
  if (!result) return fail(result.error());
  if (a.json) {
    nlohmann::json counters = nlohmann::json::object();
    for (size_t i = 0; i < result->counters.size(); ++i) {
      counters[collector::select_name(request.selects[i])] = result->counters[i];
    }
    fmt::print("{}\n", nlohmann::json{{"lid", a.lid},
                                      {"port", a.port},
                                      {"outcome", collector::to_string(result->outcome)},
                                      {"detail", result->detail},
                                      {"tag", result->tag},
                                      {"tick", result->tick},
                                      {"interval", result->interval},
                                      {"extended", result->extended},
                                      {"counters", counters}}
                           .dump(1));
  } else if (result->outcome == collector::SampleOutcome::kDone) {
    fmt::print("LID {} port {}: {} ticks (tick code {}), tag 0x{:04x}, {}-bit results\n", a.lid,
               a.port, result->interval, result->tick, result->tag, result->extended ? 64 : 32);
    for (size_t i = 0; i < result->counters.size(); ++i) {
      fmt::print("  {:<18} {:>20}\n", collector::select_name(request.selects[i]),
                 result->counters[i]);
    }
  }
  if (result->outcome != collector::SampleOutcome::kDone) {
    return fail(fmt::format("LID {} port {}: sample {}: {}", a.lid, a.port,
                            collector::to_string(result->outcome), result->detail));
  }
  return 0;
}

}  // namespace

void add_sample_command(CLI::App& app, Action& action) {
  auto* sample = app.add_subcommand(
      "sample",
      "Measure one port with PortSamplesControl/Result: program a sample with a fresh tag, wait "
      "until it is done and read it (64-bit results where offered). Gives per-VL traffic. A port "
      "another manager is sampling is left alone unless --take-over.");
  auto a = std::make_shared<SampleArgs>();
  sample->add_option("lid", a->lid, "LID of the port's node (a switch: its port-0 LID)")
      ->required()
      ->check(CLI::Range(1u, 0xBFFFu));
  sample->add_option("port", a->port, "Port number")->required()->check(CLI::Range(1u, 254u));
  sample->add_option("--counters", a->counters, "Up to 15 counters (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  sample->add_option("--interval", a->interval, "Sample length in the port's ticks")
      ->capture_default_str()
      ->check(CLI::Range(1u, 0xFFFFFFFFu));
  sample->add_option("--start", a->start, "Ticks before the sample starts")->capture_default_str();
  sample->add_flag("--take-over", a->take_over, "Sample even if another manager is sampling");
  sample->add_flag("--json", a->json, "Print JSON");
  sample->add_option("--timeout", a->timeout, "Give up waiting after this long (1m30s, 500ms)")
      ->capture_default_str();
  // Before --timeout took a duration: milliseconds.
  sample
      ->add_option_function<unsigned>(
          "--timeout-ms",
          [a](unsigned ms) {
            fmt::print(stderr, "ibpulse: --timeout-ms is deprecated; write --timeout {}ms\n", ms);
            a->timeout = fmt::format("{}ms", ms);
          },
          "")
      ->group("");
  add_fabric_flags(*sample, a->flags, {"fabric.ca", "fabric.ca-port"});
  sample->callback([a, &action] { action = [a] { return run_sample(*a); }; });
}

}  // namespace ibpulse::cli
