#pragma once
// Which switches are down or rebooted, from one snapshot to the next, so that a switch that
// loses power raises one alert, not one per port and per peer. A switch is down when every
// port that was Active is no longer (at least two were), when all its ports left discovery,
// or when every port it has counters for shows a foreign clear within two snapshots (its
// counters restarted from zero: a reboot, however quick). It stays down while none of its ports is
// Active again. Its ports and their peers are held (their own alerts withheld) until a while
// after it is back (HealthOptions::switch_hold): the flaps and link-down counts a reboot leaves
// on every link are the switch's event, already told.
//
// Thread safety: one thread (the health pass).

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ibpulse/converters/snapshot.h"

namespace ibpulse::exporters::alerts::detail {

class SwitchWatch {
 public:
  explicit SwitchWatch(std::chrono::milliseconds hold) : hold_(hold) {}

  // After this, down() and held() answer for snapshot `s`.
  void update(const converters::FabricSnapshot& s);
  const std::vector<uint64_t>& down() const { return down_; }  // sorted GUIDs
  bool held(uint64_t switch_guid) const;

 private:
  struct Watch {
    uint32_t active = 0;          // Active ports at the last snapshot
    uint32_t in_topology = 0;     // ports still in discovery
    uint64_t foreign_clears = 0;  // summed over its ports
    // The sum one snapshot earlier: a reboot's clears are counted over two snapshots, since
    // the sweep that reads them may be published in two.
    uint64_t foreign_clears_before = 0;
    bool down = false;
    converters::Clock::time_point held_until{};
  };
  struct Count {
    uint32_t ports = 0, read = 0, active = 0, in_topology = 0, cleared = 0;
    uint64_t foreign_clears = 0;
  };
  static Count count(const converters::FabricSnapshot& s, size_t first, size_t last);
  std::chrono::milliseconds hold_;
  std::unordered_map<uint64_t, Watch> watches_;
  std::vector<uint64_t> down_;
  std::vector<uint64_t> held_;  // sorted
  converters::Clock::time_point now_{};
};

}  // namespace ibpulse::exporters::alerts::detail
