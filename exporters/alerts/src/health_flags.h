#pragma once
// The flags that withhold a port's own alerts (HealthFlag): its switch down or just back (one
// switch_down alert instead), or health.maintenance naming its node; both ends of a link get
// the flags of either, since a link is one thing to alert on.
//
// Thread safety: one thread (the health pass).

#include <chrono>
#include <memory>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/alerts/name_filter.h"
#include "switch_watch.h"

namespace ibpulse::exporters::alerts::detail {

bool is_guid(const std::string& text);  // "0x" and hex digits, not 0

class HealthFlagger {
 public:
  explicit HealthFlagger(const HealthOptions& options);

  // Sets flags and switches_down in `out`, computed from `s` (ports and links already there).
  void apply(const converters::FabricSnapshot& s, std::chrono::system_clock::time_point wall,
             HealthSnapshot& out);

 private:
  struct Window {
    uint64_t guid = 0;                       // or
    std::shared_ptr<const NameFilter> name;  // on the node's name
    std::chrono::system_clock::time_point until{};
  };
  bool in_maintenance(const collector::Node* node, uint64_t guid,
                      std::chrono::system_clock::time_point wall) const;

  SwitchWatch switches_;
  std::vector<Window> windows_;
};

}  // namespace ibpulse::exporters::alerts::detail
