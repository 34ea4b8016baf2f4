// Every command explains itself, and bad arguments get one line and a non-zero exit.
#include <gtest/gtest.h>

#include <tuple>

#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

const std::vector<std::vector<std::string>> kCommands = {
    {},
    {"sim"},
    {"sim", "up"},
    {"sim", "down"},
    {"sim", "status"},
    {"sim", "exec"},
    {"sim", "set"},
    {"sim", "error"},
    {"sim", "link-down"},
    {"sim", "link-up"},
    {"sim", "bump"},
    {"sim", "lid"},
    {"sim", "traffic"},
    {"demo"},
    {"discover"},
    {"query"},
    {"run"},
    {"sample"},
};

TEST(Cli, EveryCommandHasHelp) {
  for (auto args : kCommands) {
    args.push_back("--help");
    const auto out = run_ibpulse(args);
    EXPECT_EQ(out.exit_code, 0) << args.front();
    EXPECT_NE(out.out.find("Usage:"), std::string::npos) << args.front();
    EXPECT_GT(out.out.size(), 200u) << "help should explain the command";
  }
  EXPECT_NE(run_ibpulse({"sim", "up", "--help"}).out.find("--hosts"), std::string::npos);
  EXPECT_NE(run_ibpulse({"sim", "traffic", "--help"}).out.find("--utilization"), std::string::npos);
}

TEST(Cli, BadArgumentsGiveOneLineAndExitTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {"frobnicate"},
      {"sim"},
      {"sim", "up"},  // --name missing
      {"sim", "up", "--name", "x", "--hosts", "0"},
      {"sim", "up", "--name", "x", "--radix", "8"},  // --radix needs --hosts
      {"sim", "up", "--name", "x", "--hosts", "4", "--topology", "/etc/hostname"},
      {"sim", "up", "--name", "x", "--topology", "/nonexistent"},
      {"sim", "error", "--name", "x", "Hca1[1]", "101"},
      {"sim", "traffic", "--name", "x", "--utilization", "-1"},
      {"--log.level", "loud", "sim", "status"},
  };
  for (const auto& args : bad) {
    const auto out = run_ibpulse(args);
    std::string joined;
    for (const auto& a : args)
      joined += a + " ";
    EXPECT_EQ(out.exit_code, 2) << joined;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << joined << ": " << out.err;
    EXPECT_EQ(out.err.rfind("ibpulse: ", 0), 0u) << out.err;
  }
}

// Values that strtod/strtoull would have turned into something else (0.4ms into a 0 interval,
// -1 into 2^64-1, 0777 into 511) are refused, naming the setting and the value.
TEST(Cli, AVictimUtilizationAboveTheRootsIsRefused) {
  const auto out = run_ibpulse({"run", "--congestion.victim-utilization", "0.95"});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("--congestion.victim-utilization (0.95) must not exceed "
                         "--congestion.root-utilization (0.9)"),
            std::string::npos)
      << out.err;
}

TEST(Cli, BadSettingValuesAreRefusedNotRounded) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"run", "--poll.counters-interval", "0.4ms"}, "whole number of milliseconds"},
      {{"run", "--poll.counters-interval", "5ms"}, "10ms"},
      {{"run", "--counters.publish-interval", "0"}, "expected a duration"},
      {{"run", "--mad.timeout", "1.5ms"}, "whole number of milliseconds"},
      {{"run", "--fabric.m-key", "-1"}, "expected a whole number"},
      {{"run", "--fabric.m-key", "0777"}, "octal"},
      {{"run", "--mad.window", "0x"}, "expected a whole number"},
      {{"discover", "--fabric.m-key", "-1"}, "expected a whole number"},
      {{"query", "--mad.timeout", "1.5ms", "--all"}, "whole number of milliseconds"},
      {{"query", "--collect.ext-speeds-layout", "auto", "--all"}, "give legacy or rsfec"},
      {{"run", "--collect.ext-speeds-layout", "RS-FEC"}, "expected auto, legacy or rsfec"},
      {{"run", "--health.ber-spec-by-speed", "HDR:1e-12"}, "expected SPEED=BER"},
      {{"run", "--health.ufm-windows", "NDR=12m:2"}, "expected a BER from 1e-30 to 1"},
      {{"run", "--congestion.xmit-wait-tick", "0.5ns"}, "whole number of nanoseconds"},
      {{"run", "--congestion.xmit-wait-tick", "4"}, "expected a duration like 4ns"},
      {{"run", "--congestion.wait-ratio", "5%"}, "expected a number from 0 to 1"},
      {{"run", "--health.maintenance", "leaf07"}, "expected NODE@UNTIL"},
      {{"run", "--health.maintenance", "leaf07@noon"}, "expected a UTC time"},
      {{"run", "--health.maintenance", "leaf[@2026-11-29T06:00Z"}, "bad regular expression"},
      // A command's seconds take durations too, in their range.
      {{"top", "--interval", "100ms", "--once"}, "is outside 0.2s to 3600s"},
      {{"top", "--interval", "1.5ms", "--once"}, "whole number of milliseconds"},
      {{"demo", "--duration", "2d"}, "expected a duration like 500ms"},
  };
  for (const auto& [args, why] : bad) {
    const auto out = run_ibpulse(args);
    EXPECT_NE(out.exit_code, 0) << args[1];
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    EXPECT_NE(out.err.find(args[1]), std::string::npos) << out.err;
    EXPECT_NE(out.err.find("'" + args[2] + "'"), std::string::npos) << out.err;
    EXPECT_NE(out.err.find(why), std::string::npos) << out.err;
  }
}

// discover, query and sample take run's names for the fabric and MAD settings; what they took
// before still works, with one note naming the new spelling (and the value as it now reads).
TEST(Cli, OldSpellingsOfFabricFlagsStillWorkWithANote) {
  const std::vector<std::tuple<std::vector<std::string>, std::string, std::string>> cases = {
      {{"discover", "--m-key", "-1"},
       "ibpulse: --m-key is deprecated; write --fabric.m-key -1\n",
       "--fabric.m-key: expected a whole number"},
      {{"query", "--all", "--mad.timeout-ms", "0"},
       "ibpulse: --mad.timeout-ms is deprecated; write --mad.timeout 0ms\n",
       "--mad.timeout: expected a duration"},
      {{"query", "--all", "--ext-speeds-layout", "fec"},
       "ibpulse: --ext-speeds-layout is deprecated; write --collect.ext-speeds-layout fec\n",
       "--collect.ext-speeds-layout: expected auto, legacy or rsfec, got 'fec'"},
      {{"sample", "1", "1", "--ca-port", "300"},
       "ibpulse: --ca-port is deprecated; write --fabric.ca-port 300\n",
       "--fabric.ca-port: expected a whole number from 0 to 254"},
      {{"sample", "1", "1", "--timeout-ms", "0"},
       "ibpulse: --timeout-ms is deprecated; write --timeout 0ms\n",
       "--timeout: expected a"},
  };
  for (const auto& [args, note, error] : cases) {
    const auto out = run_ibpulse(args);
    EXPECT_NE(out.exit_code, 0) << args[1];
    EXPECT_EQ(out.err.rfind(note, 0), 0u) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 2) << out.err;
    EXPECT_NE(out.err.find(error), std::string::npos) << out.err;
  }
  // The old spellings are not in --help: it shows the one vocabulary.
  const auto help = run_ibpulse({"query", "--help"});
  EXPECT_NE(help.out.find("--fabric.ca "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--mad.timeout "), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--mad.timeout-ms"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--ca "), std::string::npos) << help.out;
}

TEST(Cli, AMisspeltCommandIsNamed) {
  const auto top = run_ibpulse({"frobnicate"});
  EXPECT_NE(top.err.find("unknown command 'frobnicate'"), std::string::npos) << top.err;
  const auto sim = run_ibpulse({"--log.level", "debug", "sim", "upp"});
  EXPECT_NE(sim.err.find("unknown command 'upp' for 'ibpulse sim'"), std::string::npos) << sim.err;
  EXPECT_NE(sim.err.find("link-down"), std::string::npos) << "lists the commands it knows";
}

TEST(Cli, VersionIsPrinted) {
  const auto out = run_ibpulse({"--version"});
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.out.rfind("ibpulse ", 0), 0u) << out.out;
}

}  // namespace
}  // namespace ibpulse::testing
