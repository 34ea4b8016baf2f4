// IB-SMA-MIB's notifications from the Notices the subnet manager forwards: each named by the
// node its LID has in the last snapshot's topology, and sent through storm control like every
// notification.
#include "engine_state.h"

namespace ibpulse::exporters::alerts {
namespace {

// The LID that says which node a Notice is about: the port that saw a bad key (256-258: their
// issuer; the LID in their details is the offender's), the switch of 259, the trap's own LID
// otherwise.
uint16_t subject_lid(const collector::SmNotice& n) {
  switch (n.trap) {
    case 256:
    case 257:
    case 258:
      return n.issuer_lid;
    case 259:
      return n.switch_lid;
    default:
      return n.lid;
  }
}

// The node with `lid` (a switch by its port-0 LID, a CA by one of its ports') and which port:
// a CA's port with that LID; a switch's the Notice's own port number (0 when it has none).
void locate(const collector::Topology* topology, const collector::SmNotice& n, AlertEvent& e) {
  e.port = {0, n.port};
  if (topology == nullptr) return;
  const uint16_t lid = subject_lid(n);
  for (const collector::Port& p : topology->ports) {
    if (p.lid != lid) continue;
    const collector::Node* node = topology->find_node(p.key.node_guid);
    const bool a_switch = node != nullptr && node->kind == collector::NodeKind::kSwitch;
    e.port = {p.key.node_guid, a_switch ? n.port : p.key.port};
    if (node != nullptr) e.node_name = node->name;
    return;
  }
}

}  // namespace

std::vector<Decision> ThresholdEngine::forward(std::vector<collector::SmNotice> notices,
                                               converters::Clock::time_point now,
                                               std::chrono::system_clock::time_point wall) {
  Impl& m = *impl_;
  std::vector<Decision> out;
  for (collector::SmNotice& n : notices) {
    AlertEvent e;
    e.kind = EventKind::kSma;
    e.when = wall;
    e.sma_trap = n.trap;
    e.lid = n.lid;
    e.capability_mask = n.capability_mask;
    e.system_image_guid = n.system_image_guid;
    locate(m.indexed_topology.get(), n, e);
    e.notice = std::move(n);
    ++m.stats.sma_events;
    const bool sent = m.storm.admit(e, now);
    m.stats.notified += sent;
    out.push_back({std::move(e), sent});
  }
  m.stats.suppressed = m.storm.suppressed();
  return out;
}

}  // namespace ibpulse::exporters::alerts
