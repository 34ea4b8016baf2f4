#pragma once
// The daemon's landing page `/`: links to its endpoints, the fabric's size, the last sweep, and
// the fabric health page: switches as rows, their ports as cells coloured by the link's health
// and marked by congestion role, the worst links with their reasons and the congestion roots,
// refreshed from /api/health every few seconds by an inline script. Nothing is fetched from
// elsewhere (no external scripts, styles or fonts): management networks are often air-gapped.
//
// Thread safety: a pure function.

#include <cstdint>
#include <string>

namespace ibpulse::exporters::prometheus {

struct LandingFacts {
  uint64_t nodes = 0, ports = 0, snapshot_ports = 0, sweeps = 0, stale = 0;
  double last_sweep_seconds = 0;
};

std::string landing_page(const LandingFacts& facts);

}  // namespace ibpulse::exporters::prometheus
