#include "ibpulse/sim/process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace ibpulse::sim {
namespace {

using namespace std::chrono_literals;

TEST(Process, SpawnsADetachedDaemonAndStopsIt) {
  SpawnSpec spec;
  spec.argv = {"sleep", "30"};
  auto p = spawn_detached(spec);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_TRUE(is_running(*p));
  EXPECT_EQ(getpgid(p->pid), p->pid) << "a daemon leads its own session";
  EXPECT_TRUE(terminate(*p, 2s));
  EXPECT_FALSE(is_running(*p));
}

TEST(Process, AReusedPidIsNotTheSameProcess) {
  auto self = process_ref(::getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_TRUE(is_running(*self));
  ProcessRef other = *self;
  other.start_time += 1;
  EXPECT_FALSE(is_running(other));
  EXPECT_TRUE(terminate(other, 10ms)) << "nothing to stop, and we are not signalled";
}

TEST(Process, ReportsProgramsThatCannotRun) {
  SpawnSpec spec;
  spec.argv = {"/nonexistent/program"};
  auto p = spawn_detached(spec);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("No such file"), std::string::npos) << p.error();
}

TEST(Process, RunCommandCapturesOutputAndStatus) {
  auto r = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, {{"X", "y"}}, 5s);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  auto env = run_command({"sh", "-c", "printf %s \"$X\""}, {{"X", "value"}}, 5s);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->out, "value");
}

TEST(Process, RunCommandTimesOut) {
  auto r = run_command({"sleep", "10"}, {}, 200ms);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("did not finish"), std::string::npos);
}

TEST(Process, FindsProgramsInPath) {
  EXPECT_TRUE(find_program("sh").has_value());
  EXPECT_FALSE(find_program("no-such-program-ibpulse").has_value());
}

}  // namespace
}  // namespace ibpulse::sim
