// The remote writer's threads run at a lower CPU priority than polling: on a busy host (on the
// simulator: ibsim, the poller and the writer on two cores) rendering snapshots for remote
// write must not take CPU from the poller. Read back from /proc, as `ps -L -o nice` shows it.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "ibpulse/base/thread_priority.h"
#include "ibpulse/exporters/remote_write/writer.h"

namespace ibpulse::exporters::remote_write {
namespace {

using namespace std::chrono_literals;

// Thread name -> nice value, for this process's threads whose name starts with `prefix`.
std::multimap<std::string, int> nice_of_threads(const std::string& prefix) {
  std::multimap<std::string, int> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind(prefix, 0) != 0) continue;
    std::ifstream stat(task.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    // Fields after the command's closing parenthesis: state is field 3, nice field 19.
    std::istringstream rest(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int i = 3; i < 19 && rest >> field; ++i) {
    }
    int nice = 0;
    if (rest >> nice) out.emplace(name, nice);
  }
  return out;
}

TEST(RemoteWriteThreads, ReaderAndSendersYieldToPolling) {
  WriterOptions o;
  Endpoint e;
  e.url = "http://127.0.0.1:9/api/v1/write";  // nothing is sent: no snapshot is published
  e.concurrency = 2;
  o.endpoints.push_back(e);
  converters::SnapshotStore store;
  RemoteWriter w(o, {});
  w.follow(store);
  // The threads name themselves, then lower their priority: wait for all three to have done it.
  std::multimap<std::string, int> threads;
  const auto until = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    threads = nice_of_threads("ibp-rw-");
    size_t lowered = 0;
    for (const auto& [name, nice] : threads)
      lowered += nice == kBackgroundNice ? 1 : 0;
    if (lowered == 3 || std::chrono::steady_clock::now() > until) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads.count("ibp-rw-read"), 1u);
  EXPECT_EQ(threads.count("ibp-rw-send0"), 1u);
  EXPECT_EQ(threads.count("ibp-rw-send1"), 1u);
  for (const auto& [name, nice] : threads)
    EXPECT_EQ(nice, kBackgroundNice) << name;
  // Per thread, not per process: the caller (in the daemon, the thread that polls) keeps its.
  errno = 0;
  EXPECT_EQ(getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))), 0);
  EXPECT_EQ(errno, 0);
  w.stop();
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write
