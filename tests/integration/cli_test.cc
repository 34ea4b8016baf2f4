// Every command explains itself, and bad arguments get one line and a non-zero exit.
#include <gtest/gtest.h>

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
