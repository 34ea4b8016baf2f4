#pragma once
// A simulated fabric for one test binary: brought up with `ibpulse sim up --owner-pid` (so it
// goes away even if the test crashes), torn down on every normal exit path.
//
//   int main(int argc, char** argv) {
//     ::testing::InitGoogleTest(&argc, argv);
//     ::testing::AddGlobalTestEnvironment(new ibpulse::testing::SimFabricEnvironment());
//     return RUN_ALL_TESTS();
//   }
//   ... SimFabricEnvironment::fabric().lid("Hca1", 1)
//
// Thread safety: use from the test's main thread.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ibpulse/sim/process.h"

namespace ibpulse::testing {

// Runs the ibpulse binary under test.
sim::CommandOutput run_ibpulse(const std::vector<std::string>& args,
                               std::chrono::milliseconds timeout = std::chrono::seconds(120),
                               const sim::EnvVars& env = {});

// Every MAD that crosses a link adds this many dwords (and one packet) to the data counters of
// both its ports, each way (ibsim counts a MAD as a 288-byte packet on every link it
// crosses): tests bound what their own MADs add with it.
inline constexpr uint64_t kMadDwords = 72;
// All ones of a 32-bit counter: where PortXmitData and friends latch.
inline constexpr uint64_t kLatch32 = 4294967295;

struct PortInfo {
  std::string node;
  unsigned port = 0;
  unsigned lid = 0;
  uint64_t node_guid = 0;
  std::string state;
  std::string remote_node;
  unsigned remote_port = 0;
};

// One disconnected part (subnet) of a fabric, as `sim up` recorded it.
struct PartInfo {
  std::string attach_node;  // where its subnet manager attaches (SIM_HOST)
  uint64_t subnet_prefix = 0;
};

class SimFabric {
 public:
  // A unique fabric name per call, under a private root folder; `extra_args` go to `sim up`.
  static std::unique_ptr<SimFabric> up(const std::string& label,
                                       const std::vector<std::string>& extra_args = {});
  ~SimFabric();  // NOLINT(bugprone-exception-escape): see the definition
  SimFabric(const SimFabric&) = delete;
  SimFabric& operator=(const SimFabric&) = delete;

  const std::string& name() const { return name_; }
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path run_dir() const { return root_ / name_; }
  const std::string& socket_name() const { return socket_name_; }

  // The LID that addresses a port's PMA (a switch port: the switch's port-0 LID).
  unsigned lid(const std::string& node, unsigned port) const;
  const PortInfo& port(const std::string& node, unsigned port) const;
  const std::vector<PortInfo>& ports() const { return ports_; }
  // The fabric's parts in `sim up`'s order (part 1 first); one for a connected topology.
  const std::vector<PartInfo>& parts() const { return parts_; }

  // `ibpulse sim <verb> --name <this> --root <root> args...`
  sim::CommandOutput sim(const std::string& verb, const std::vector<std::string>& args = {}) const;
  // `ibpulse sim exec ... -- command...`
  // `ibpulse run` gets `--web.listen-address 127.0.0.1:0` unless the command names an address:
  // daemons of test binaries running side by side must not fight over the default port.
  // `host`: the node to attach at (`--host`), which decides the subnet the command sees.
  sim::CommandOutput exec(const std::vector<std::string>& command,
                          const std::string& host = "") const;
  // Starts `command` attached to this fabric in the background (through `sim exec`, so
  // `sim down` stops it too), output into `log`. `host`: the node to attach at.
  sim::ProcessRef start_client(const std::vector<std::string>& command,
                               const std::filesystem::path& log, const sim::EnvVars& env = {},
                               const std::string& host = "") const;
  // A console line that must succeed.
  void set(const std::string& line) const;
  // One field of `perfquery [-x] LID PORT` output, attached to this fabric.
  uint64_t perfquery(const std::string& node, unsigned port, const std::string& field,
                     bool extended = false) const;

  // Stops the fabric now (the destructor does it otherwise).
  void down();

 private:
  SimFabric() = default;
  std::string name_;
  std::filesystem::path root_;
  std::string socket_name_;
  std::vector<PortInfo> ports_;
  std::vector<PartInfo> parts_;
  bool up_ = false;
};

// One fabric shared by the tests of a binary.
class SimFabricEnvironment : public ::testing::Environment {
 public:
  explicit SimFabricEnvironment(std::vector<std::string> extra_args = {})
      : extra_args_(std::move(extra_args)) {}
  void SetUp() override;
  void TearDown() override;
  static SimFabric& fabric();

 private:
  std::vector<std::string> extra_args_;
};

// Every "Name:......value" line of perfquery's output.
std::map<std::string, uint64_t> perfquery_fields(const std::string& text);
// One of them; throws when absent.
uint64_t perfquery_field(const std::string& text, const std::string& field);

// One "Field:....value" of smpquery's output (text, e.g. "Active"); "" when absent.
std::string smpquery_field(const std::string& text, const std::string& field);
// The node descriptions ibnetdiscover lists (the `# "name"` after each node header).
std::set<std::string> ibnetdiscover_names(const std::string& text);

// "0x" + 16 lower-case hex digits, as ibpulse writes GUIDs.
std::string guid_text(uint64_t guid);

}  // namespace ibpulse::testing
