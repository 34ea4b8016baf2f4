// IB-SMA-MIB's notifications from what the snapshots show, as a port's SMA would have trapped
// them: 129 (local link integrity threshold reached) and 130 (excessive buffer overrun
// threshold reached) when the counter grew past the port's PortInfo threshold within
// EngineOptions::sma_window; 144 (capability mask modified) and 145 (system image GUID
// modified) when a discovery reads another value than the one before (never at first sight).
// They go through storm control like every notification.
#include "engine_state.h"

namespace ibpulse::exporters::alerts {
namespace {

using schema::CounterId;

struct Threshold {
  uint16_t trap;
  CounterId counter;
  uint8_t collector::SmaPortInfo::*limit;
};
constexpr std::array<Threshold, 2> kThresholds = {{
    {129, CounterId::kLocalLinkIntegrityErrors,
     &collector::SmaPortInfo::local_phys_error_threshold},
    {130, CounterId::kExcessiveBufferOverrunErrors,
     &collector::SmaPortInfo::overrun_error_threshold},
}};

}  // namespace

AlertEvent ThresholdEngine::Impl::sma_event(uint16_t trap, size_t i, const Step& step) const {
  AlertEvent e = port_event(EventKind::kSma, step.snapshot.ports[i], nodes[i], step.wall);
  e.sma_trap = trap;
  if (links[i] != nullptr) e.lid = links[i]->lid;  // a switch port's: the switch's LID
  if (trap == 128 && nodes[i] != nullptr) e.lid = nodes[i]->lid;
  return e;
}

void ThresholdEngine::Impl::sma_thresholds(Step& step, size_t i) {
  const converters::PortSnapshot& p = step.snapshot.ports[i];
  for (size_t t = 0; t < kThresholds.size(); ++t) {
    const Threshold& th = kThresholds[t];
    if (!p.has(th.counter)) continue;
    PortHistory::SmaWindow& w = port_history[i].sma_windows[t];
    const uint64_t total = p.total(th.counter);
    if (w.start == kNever || total < w.base) {  // first sight, or cleared: a window starts
      w = {step.now, total, false};
      continue;
    }
    // The growth up to this reading counts in the window it closes; the next starts here.
    const bool ends = step.now - w.start >= options.sma_window;
    const uint64_t limit = links[i] != nullptr ? links[i]->sma.*th.limit : 0;
    const uint64_t growth = total - w.base;
    const bool trap = !w.sent && growth > limit;
    if (ends) {
      w = {step.now, total, false};
    } else if (trap) {
      w.sent = true;
    }
    if (!trap) continue;
    AlertEvent e = sma_event(th.trap, i, step);
    e.value = static_cast<double>(growth);
    e.threshold = static_cast<double>(limit);
    e.window_seconds = static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::seconds>(options.sma_window).count());
    ++stats.sma_events;
    notify(std::move(e), step);
  }
}

void ThresholdEngine::Impl::sma_discovery(Step& step) {
  const converters::FabricSnapshot& s = step.snapshot;
  sma_topology = s.topology;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    const collector::Node* node = nodes[i];
    const collector::Port* port = links[i];
    if (node == nullptr || port == nullptr) continue;
    const bool node_first_row = i == 0 || s.ports[i - 1].key.node_guid != node->guid;
    if (node_first_row) {
      auto [it, added] = image_guids.try_emplace(node->guid, node->system_image_guid);
      if (!added && it->second != node->system_image_guid) {
        it->second = node->system_image_guid;
        AlertEvent e = sma_event(145, i, step);
        e.system_image_guid = node->system_image_guid;
        ++stats.sma_events;
        notify(std::move(e), step);
      }
    }
    // A switch's capability mask is its port 0's, judged once per switch.
    const bool a_switch = node->kind == collector::NodeKind::kSwitch;
    if (a_switch && (!node_first_row || !node->port0)) continue;
    const collector::PortKey where = a_switch ? collector::PortKey{node->guid, 0} : port->key;
    const uint32_t mask = a_switch ? node->port0->capability_mask : port->sma.capability_mask;
    if (!a_switch && port->sma.lid == 0) continue;  // never read (no link): no mask to compare
    auto [it, added] = capability_masks.try_emplace(where, mask);
    if (added || it->second == mask) continue;
    it->second = mask;
    AlertEvent e = sma_event(144, i, step);
    e.capability_mask = mask;
    ++stats.sma_events;
    notify(std::move(e), step);
  }
}

void ThresholdEngine::Impl::follow_sma(Step& step) {
  for (size_t i = 0; i < step.snapshot.ports.size(); ++i)
    sma_thresholds(step, i);
  if (step.snapshot.topology && step.snapshot.topology != sma_topology) sma_discovery(step);
}

}  // namespace ibpulse::exporters::alerts
