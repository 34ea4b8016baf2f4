// The state file at daemon level: one written by another ibpulse version (other counters)
// and one the daemon cannot read. Each test has its
// own state directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "daemon_client.h"
#include "sim_fabric.h"

namespace ibpulse::testing {
namespace {

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("ibpulse-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

sim::CommandOutput run_once(const std::filesystem::path& dir) {
  return fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "2",
                        "--poll.counters-interval", "300ms", "--state.dir", dir.string(),
                        "--log.level", "trace"});
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The state file's trailer is FNV-1a over everything before it (converters/src/state_file.cc).
uint64_t fnv1a(const std::string& bytes, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<uint8_t>(bytes[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

// As an ibpulse version without symbol_error would have written it: that counter's key in the
// file's counter table renamed (converters/src/state_counter_map.h), with a checksum that
// matches.
void drop_symbol_error(const std::filesystem::path& path) {
  std::string bytes = read_file(path);
  const size_t at = bytes.find("symbol_error/");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 10] = 'x';
  const uint64_t sum = fnv1a(bytes, bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &sum, sizeof sum);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The discovery's topology cache and the link health, written beside the counters' state
// (collector/discovery.h, docs/health.md), files of their own.
bool is_beside_the_state(const std::string& name) {
  return (name.starts_with("topology-") &&
          (name.ends_with(".ibnd") || name.ends_with(".ibnd.pending"))) ||
         name == "health.json";
}

// Files of `dir` other than those beside the state.
size_t state_files(const std::filesystem::path& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    n += !is_beside_the_state(entry.path().filename().string());
  return n;
}

TEST(StateFile, AFileFromAnotherVersionRestoresTheCountersBothKnow) {
  const auto dir = fresh_dir("state-schema");
  const auto state = dir / "counters.state";
  const std::string symbol = total_line(fabric(), "Hca2", 1, "symbol_error");
  const std::string downed = total_line(fabric(), "Hca2", 1, "link_downed");
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=100");
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.LinkDownedCounter=3");
  auto out = run_once(dir);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(total_in(out.err, symbol), 100u) << out.err;
  EXPECT_EQ(total_in(out.err, downed), 3u) << out.err;
  drop_symbol_error(state);
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=20");  // cleared
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.LinkDownedCounter=1");    // cleared

  out = run_once(dir);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto line = out.err.find("event=state_loaded path=\"" + state.string() + "\"");
  ASSERT_NE(line, std::string::npos) << out.err;
  EXPECT_NE(out.err.find(" counters_unknown=1 ", line), std::string::npos) << out.err;
  // Not 120: this version's symbol_error is not the file's, so it starts from the reading.
  EXPECT_EQ(total_in(out.err, symbol), 20u) << out.err;
  // 3 + 1: a counter both versions know carries on over the clear.
  EXPECT_EQ(total_in(out.err, downed), 4u) << out.err;
  EXPECT_EQ(state_files(dir), 2u) << "the state file and the lock, nothing set aside";
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=0");
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.LinkDownedCounter=0");
  std::filesystem::remove_all(dir);
}

// A state file the daemon cannot read may still hold what an operator needs: the daemon runs
// without one and writes nothing there.
TEST(StateFile, AnUnreadableFileIsNeverOverwritten) {
  const auto dir = fresh_dir("state-unreadable");
  const auto state = dir / "counters.state";
  std::filesystem::create_directories(state);  // read() fails with EISDIR
  std::ofstream(state / "kept") << "operator's";
  const auto out = run_once(dir);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find("event=state_load_failed path=\"" + state.string() + "\""),
            std::string::npos)
      << out.err;
  EXPECT_EQ(out.err.find("event=state_saved"), std::string::npos) << out.err;
  EXPECT_TRUE(std::filesystem::is_directory(state));
  EXPECT_EQ(read_file(state / "kept"), "operator's");
  // The topology cache and the link health are no counters' state: they are written beside.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "counters.state" || name == "counters.lock" || is_beside_the_state(name))
        << name;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ibpulse::testing
