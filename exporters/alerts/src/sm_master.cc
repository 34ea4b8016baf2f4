// ibpulseSmMasterChanged, the subnet manager MIB draft's smStatusChangeTrap rehomed: which
// subnet manager is each subnet's master, from the poller's SMInfo rounds
// (FabricSnapshot::subnet_managers). The first master seen in a subnet is no change (an event
// that is only logged, never sent and not counted). Another SM
// answering as master is one at once; no SM answering as master is one only after
// kSmMasterLostRounds rounds in a row, for one unanswered read of a live master is not a lost
// master. Each subnet is judged when its own rounds advance, so a daemon polling several
// subnets judges each at its own pace. Through storm control like every notification.
#include <algorithm>

#include "engine_state.h"

namespace ibpulse::exporters::alerts {
namespace {

using collector::SubnetManagerInfo;

constexpr unsigned kSmMasterLostRounds = 2;
constexpr uint8_t kMasterState = 3;  // SMInfo SMState: master

// The SM of `sm_round` that says master: the one told before while it still says so (two say so
// during a hand-over), else the first.
const SubnetManagerInfo* master_of(const std::vector<const SubnetManagerInfo*>& sm_round,
                                   uint64_t told_guid) {
  const SubnetManagerInfo* first = nullptr;
  for (const SubnetManagerInfo* sm : sm_round) {
    if (sm->info.state != kMasterState) continue;
    if (sm->info.guid == told_guid) return sm;
    if (first == nullptr) first = sm;
  }
  return first;
}

}  // namespace

void ThresholdEngine::Impl::follow_subnet_managers(Step& step) {
  const auto& sms = step.snapshot.subnet_managers;
  if (!sms || !step.snapshot.topology) return;  // nodes are named from a topology: wait for one
  sm_rounds_judged.resize(std::max(sm_rounds_judged.size(), sms->rounds.size()));
  for (size_t subnet = 0; subnet < sms->rounds.size(); ++subnet) {
    const uint64_t ended = sms->rounds[subnet] - sm_rounds_judged[subnet];
    if (ended == 0) continue;
    sm_rounds_judged[subnet] = sms->rounds[subnet];
    std::vector<const SubnetManagerInfo*> sm_round;
    for (const SubnetManagerInfo& sm : sms->managers)
      if (sm.subnet == subnet) sm_round.push_back(&sm);
    judge_master(static_cast<uint8_t>(subnet), sm_round, ended, step);
  }
}

void ThresholdEngine::Impl::judge_master(uint8_t subnet,
                                         const std::vector<const SubnetManagerInfo*>& sm_round,
                                         uint64_t rounds_ended, Step& step) {
  auto [it, first_sight] = masters.try_emplace(subnet);
  SubnetMaster& told = it->second;
  const SubnetManagerInfo* now = master_of(sm_round, told.sm.info.guid);
  if (now != nullptr) {
    told.rounds_without = 0;
    const bool same = !first_sight && told.sm.node_guid != 0 && told.sm.info.guid == now->info.guid;
    const SubnetManagerInfo before = told.sm;
    told.sm = *now;  // the same master's LID or priority may have changed: no notification
    if (!same) notify_master(subnet, now, before, step, first_sight);
    return;
  }
  if (first_sight) {
    masters.erase(it);  // no master seen yet: nothing to compare with
    return;
  }
  if (told.sm.node_guid == 0) return;  // already told there is none
  told.rounds_without += rounds_ended;
  if (told.rounds_without < kSmMasterLostRounds) return;
  const SubnetManagerInfo before = told.sm;
  told.sm = SubnetManagerInfo{};
  notify_master(subnet, nullptr, before, step, false);
}

void ThresholdEngine::Impl::notify_master(uint8_t subnet, const SubnetManagerInfo* now,
                                          const SubnetManagerInfo& before, Step& step,
                                          bool first_sight) {
  const collector::Topology& t = *step.snapshot.topology;
  const SubnetManagerInfo& where = now != nullptr ? *now : before;
  AlertEvent e;
  e.kind = EventKind::kSmMaster;
  e.when = step.wall;
  e.port = {where.node_guid, where.port};
  const collector::Node* node = t.find_node(where.node_guid);
  e.node_name = node != nullptr ? node->name : "";
  e.lid = where.lid;
  e.subnet_prefix = where.subnet_prefix;
  if (t.subnets.size() > 1 && subnet < t.subnets.size()) e.subnet = t.subnets[subnet].local_port;
  e.sm_guid = now != nullptr ? now->info.guid : 0;
  e.previous_sm_guid = before.node_guid != 0 ? before.info.guid : 0;
  e.sm_priority = now != nullptr ? now->info.priority : 0;
  e.sm_state = now != nullptr ? now->info.state : 0;
  if (first_sight) {
    e.first_sight = true;
    step.out.push_back({std::move(e), false});
    return;
  }
  ++stats.sm_master_changes;
  notify(std::move(e), step);
}

}  // namespace ibpulse::exporters::alerts
