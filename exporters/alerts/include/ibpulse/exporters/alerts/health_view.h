#pragma once
// Link health and congestion as JSON for people and scripts (docs/health.md, "Views"): what
// `/api/health` and `/api/health/grid` serve and `ibpulse top` and the landing page show.
//
// /api/health: {"sequence", "summary": {ports, links, ok, degraded, failing, held, maintenance,
// roots, victims, switches_down: [{node_guid, node}]}, "links": the worst links first (failing,
// then degraded, then ok; within a state the higher BER, then more flaps), each {state,
// reasons, a: END, b: END or null}, END = {node_guid, port, node, state, reasons, symbol_ber,
// effective_ber, raw_ber (null: unknown), flaps, held, maintenance}; "roots": congestion roots,
// most victims first, each {node_guid, port, node, victims, stuck, utilization, wait_ratio,
// peer: {node_guid, port, node} or null}}.
// /api/health/grid: {"sequence", "switches": [{node_guid, node, down, ports: [[port, state,
// role, flags], ...]}]}, state 0 ok / 1 degraded / 2 failing (the link's), role 0 none / 1 root /
// 2 victim, flags as HealthFlag plus 4 for a port without a link; switches in GUID order.
//
// Thread safety: pure functions of immutable snapshots.

#include <cstddef>
#include <memory>
#include <string>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/alerts/name_filter.h"

namespace ibpulse::exporters::alerts {

struct HealthViewLimits {
  size_t links = 100;  // the worst links listed
  size_t roots = 100;  // the congestion roots listed
  // Only links with an end, and roots whose port or peer, on a node whose name or GUID this
  // matches (the summary stays the whole fabric's); null: all.
  // A filter from outside (an HTTP query) is bounded as every NameFilter is: no regular
  // expression of billions of states from a request.
  const NameFilter* filter = nullptr;
};

std::string health_view_json(const converters::FabricSnapshot& snapshot,
                             const HealthSnapshot& health, HealthViewLimits limits = {});
std::string health_grid_json(const converters::FabricSnapshot& snapshot,
                             const HealthSnapshot& health);

}  // namespace ibpulse::exporters::alerts
