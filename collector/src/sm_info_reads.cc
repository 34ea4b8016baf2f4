// The subnet managers of the fabric: the SMInfo (SMP attribute 0x20) of every port whose
// PortInfo CapabilityMask says IsSM (bit 1), a switch's from its port 0. A round goes out after
// each discovery and every poll.port-info-interval (never two at once); when all its reads have
// ended, the ones answered go to PollerEvents::subnet_managers_read. A fabric has a few SMs
// (a master and standbys): a round is a handful of SMPs.
#include "ibpulse/collector/partitions.h"
#include "poller_state.h"

namespace ibpulse::collector {

using namespace poller_detail;  // NOLINT(google-build-using-namespace): this module's own

namespace {

constexpr uint16_t kSmInfoAttribute = 0x0020;
constexpr uint32_t kIsSm = 1u << 1;  // PortInfo CapabilityMask

// The ports of `t` that say IsSM, with the LID their SMInfo is asked at.
std::vector<SubnetManagerInfo> sm_ports(const Topology& t) {
  std::vector<SubnetManagerInfo> out;
  for (const Node& n : t.nodes) {
    if (n.kind == NodeKind::kSwitch) {
      if (n.port0 && (n.port0->capability_mask & kIsSm) != 0 && n.lid != 0)
        out.push_back({n.guid, 0, n.lid, {}});
    }
  }
  for (const Port& p : t.ports) {
    const Node* n = t.find_node(p.key.node_guid);
    if (n == nullptr || n->kind == NodeKind::kSwitch || p.lid == 0) continue;
    if ((p.sma.capability_mask & kIsSm) != 0) out.push_back({n->guid, p.key.port, p.lid, {}});
  }
  return out;
}

}  // namespace

void Poller::State::read_sm_info(Clock::time_point now) {
  if (!events.subnet_managers_read || sm_pending > 0 || now < sm_next_round) return;
  if (!engine->smp_enabled()) return;
  const auto every =
      options.intervals.port_info.count() > 0 ? options.intervals.port_info : options.rediscover;
  sm_next_round = now + every;
  sm_round = sm_ports(topology);
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
  if (sm_round.empty()) events.subnet_managers_read({});
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
  events.subnet_managers_read(std::move(answered));
}

}  // namespace ibpulse::collector
