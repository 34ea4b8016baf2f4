#include "ibpulse/sim/console.h"

#include <gtest/gtest.h>

namespace ibpulse::sim {
namespace {

TEST(Console, StripsPromptsAndSplitsReplies) {
  EXPECT_EQ(strip_prompts("sim> Hca1[1] PortCounters.SymbolErrorCounter has been set to 77\nsim> "),
            "Hca1[1] PortCounters.SymbolErrorCounter has been set to 77\n");
  // ibsim echoes comments without their newline; the next prompt ends the line.
  EXPECT_EQ(strip_prompts("sim> # ibpulse-sync 1sim> # nodeid \"X\" (X) not found\n"),
            "# ibpulse-sync 1\n# nodeid \"X\" (X) not found\n");
}

TEST(Console, FindsIbsimRejections) {
  EXPECT_EQ(find_rejection("# field Bogus cannot be found in attribute PortCounters\n"),
            "# field Bogus cannot be found in attribute PortCounters");
  EXPECT_EQ(find_rejection("ok line\ncommand 'foo' unknown - skipped\n"),
            "command 'foo' unknown - skipped");
  EXPECT_TRUE(find_rejection("# nodeid \"Hca9\" (Hca9) not found\n").has_value());
  EXPECT_TRUE(find_rejection("# value '99' is out of range [0,15]\n").has_value());
  EXPECT_TRUE(find_rejection("bad params. Usage: route from-lid lid\n").has_value());
}

TEST(Console, AcceptsSuccessfulReplies) {
  EXPECT_FALSE(find_rejection("Hca1[1] PortCounters.PortXmitData has been set to 4294967295\n"));
  EXPECT_FALSE(
      find_rejection("# Net status - Sat Nov 21 05:39:39 2026\n#\tlinearcap 30720\n"
                     "#  dumped 6 nodes\n"));
  EXPECT_FALSE(find_rejection(""));
}

}  // namespace
}  // namespace ibpulse::sim
