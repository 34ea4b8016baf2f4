// The subnet managers of the fabric: the SMInfo (SMP attribute 0x20) of every port whose
// PortInfo CapabilityMask says IsSM (bit 1), a switch's from its port 0, and of the master SM
// the ports' PortInfo names. A round goes out after each discovery and every
// poll.port-info-interval (never two at once); when all its reads have ended, the ones answered
// go to PollerEvents::subnet_managers_read. A fabric has a few SMs (a master and standbys): a
// round is a handful of SMPs.
#include <algorithm>
#include <set>

#include "ibpulse/collector/partitions.h"
#include "poller_state.h"

namespace ibpulse::collector {

using namespace poller_detail;  // NOLINT(google-build-using-namespace): this module's own

namespace {

constexpr uint16_t kSmInfoAttribute = 0x0020;
constexpr uint32_t kIsSm = 1u << 1;  // PortInfo CapabilityMask

SubnetManagerInfo sm_at(uint64_t node_guid, uint8_t port, uint16_t lid, uint64_t prefix) {
  SubnetManagerInfo sm;
  sm.node_guid = node_guid;
  sm.port = port;
  sm.lid = lid;
  sm.subnet_prefix = prefix;
  return sm;
}

// The port (a switch's: port 0) that LID `lid` reaches; node_guid 0 when none does. A shard
// keeps only its own nodes' ports: a CA of another shard is found by its node's LID, its port
// then unknown (0).
SubnetManagerInfo port_at_lid(const Topology& t, uint16_t lid) {
  for (const Node& n : t.nodes)
    if (n.kind == NodeKind::kSwitch && n.lid == lid) return sm_at(n.guid, 0, lid, 0);
  for (const Port& p : t.ports) {
    if (p.lid == 0 || lid < p.lid || static_cast<unsigned>(lid - p.lid) >= (1u << p.lmc)) continue;
    const Node* n = t.find_node(p.key.node_guid);
    if (n != nullptr && n->kind != NodeKind::kSwitch) return sm_at(n->guid, p.key.port, lid, 0);
  }
  for (const Node& n : t.nodes)
    if (n.kind != NodeKind::kSwitch && n.lid == lid) return sm_at(n.guid, 0, lid, 0);
  return {};
}

// The ports of `t` that say IsSM, with the LID their SMInfo is asked at, and the master SM
// every port's PortInfo names (MasterSMLID): an SM that came up on a switch after the last
// discovery, whose port 0 only discovery reads, is still found.
std::vector<SubnetManagerInfo> sm_ports(const Topology& t) {
  std::vector<SubnetManagerInfo> out;
  std::set<uint16_t> named;  // a handful of LIDs: one master per subnet
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kSwitch || !n.port0 || n.lid == 0) continue;
    if (n.port0->master_sm_lid != 0) named.insert(n.port0->master_sm_lid);
    if ((n.port0->capability_mask & kIsSm) != 0)
      out.push_back(sm_at(n.guid, 0, n.lid, t.node_subnet_prefix(n.guid)));
  }
  for (const Port& p : t.ports) {
    const Node* n = t.find_node(p.key.node_guid);
    // A switch's data ports have no SM fields of their own: its port 0 was judged above.
    if (n == nullptr || n->kind == NodeKind::kSwitch || p.lid == 0) continue;
    if (p.sma.master_sm_lid != 0) named.insert(p.sma.master_sm_lid);
    if ((p.sma.capability_mask & kIsSm) != 0)
      out.push_back(sm_at(n->guid, p.key.port, p.lid, t.subnet_prefix_of(p)));
  }
  for (const uint16_t lid : named) {
    const bool asked = std::any_of(out.begin(), out.end(),
                                   [&](const SubnetManagerInfo& sm) { return sm.lid == lid; });
    if (asked) continue;
    SubnetManagerInfo at = port_at_lid(t, lid);
    if (at.node_guid == 0) continue;  // a LID discovery did not find: nothing to name it by
    const Port* port = at.port == 0 ? nullptr : t.find_port({at.node_guid, at.port});
    at.subnet_prefix =
        port != nullptr ? t.subnet_prefix_of(*port) : t.node_subnet_prefix(at.node_guid);
    out.push_back(at);
  }
  return out;
}

}  // namespace

void Poller::State::read_sm_info(Clock::time_point now) {
  if (!events.subnet_managers_read || sm_pending > 0 || now < sm_next_round) return;
  if (!engine->smp_enabled()) return;
  // Every local port of a subnet sees its SMs: the one that hands over its topology reads them.
  if (options.split && options.split->leader() != options.split_index) return;
  const auto every =
      options.intervals.port_info.count() > 0 ? options.intervals.port_info : options.rediscover;
  sm_next_round = now + every;
  sm_round = sm_ports(topology);
  for (SubnetManagerInfo& sm : sm_round)
    sm.subnet = options.subnet;
  sm_answered.assign(sm_round.size(), 0);
  sm_pending = sm_round.size();
  for (size_t i = 0; i < sm_round.size(); ++i) {
    const SubnetManagerInfo& target = sm_round[i];
    MadRequest r;
    r.lid = target.lid;
    const auto found = node_index.find(target.node_guid);
    r.node = found != node_index.end() ? found->second : 0;
    r.mgmt_class = MadClass::kSubnetLid;
    r.attribute = kSmInfoAttribute;
    r.modifier = 0;
    r.m_key = options.discovery.m_key.value_or(0);
    // The attribute and group are unused: the item tells on_done() what came back.
    r.cookie = new_context(Context{{target.node_guid, target.port},
                                   Attribute::kPortCounters,
                                   Group::kPortInfo,
                                   0,
                                   kSmInfoItem,
                                   static_cast<uint32_t>(i)});
    engine->submit(r);
  }
  if (sm_round.empty()) events.subnet_managers_read(options.subnet, {});
}

void Poller::State::sm_info_reply(const Context& ctx, const MadCompletion& c) {
  if (ctx.index >= sm_round.size() || sm_pending == 0) return;
  if (c.failure == MadFailure::kNone) {
    sm_round[ctx.index].info = sma_sm_info(c.data.data());
    sm_answered[ctx.index] = 1;
    ++local_sm_info_reads;
  } else {
    ++local_sm_info_failures;  // not an SM after all, or gone: not in this round
  }
  if (--sm_pending > 0) return;
  std::vector<SubnetManagerInfo> answered;
  for (size_t i = 0; i < sm_round.size(); ++i)
    if (sm_answered[i] != 0) answered.push_back(sm_round[i]);
  events.subnet_managers_read(options.subnet, std::move(answered));
}

}  // namespace ibpulse::collector
