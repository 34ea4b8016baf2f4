#include "read_plan.h"

#include <algorithm>

#include "ibpulse/collector/sweep.h"

namespace ibpulse::collector {
namespace {

using schema::Attribute;

}  // namespace

bool AttributeList::contains(Attribute a) const {
  return std::find(begin(), end(), a) != end();
}

const AttributeList& PortPlan::of(Group group) const {
  switch (group) {
    case Group::kCounters:
      return counters;
    case Group::kDetails:
      return details;
    case Group::kIdle:
    case Group::kPortInfo:  // an SMP, sent by the poller's issue_port_info()
      return idle;
  }
  return idle;
}

bool PortPlan::reads(Attribute a) const {
  return counters.contains(a) || details.contains(a) || idle.contains(a);
}

PortPlan plan_port(const Port& port, uint32_t node, const PmaCapabilities* caps,
                   const std::set<Attribute>* unsupported, bool no_extended,
                   bool ext_speeds_everywhere) {
  PortPlan plan;
  plan.node = node;
  const auto usable = [&](Attribute a) { return unsupported == nullptr || !unsupported->count(a); };
  for (Attribute a : kDetailAttributes) {
    if (usable(a)) plan.details.add(a);
  }
  const bool extended_speed =
      port.link.speed_ext_active != 0 || (ext_speeds_everywhere && port.remote.has_value());
  if (extended_speed && usable(Attribute::kPortExtendedSpeedsCounters))
    plan.details.add(Attribute::kPortExtendedSpeedsCounters);

  plan.counters_advertised = advertised_fields(Attribute::kPortCounters, caps);
  plan.extended_advertised = advertised_fields(Attribute::kPortCountersExtended, caps);
  const bool reads_extended = caps != nullptr &&
                              worth_reading(Attribute::kPortCountersExtended, *caps) &&
                              !no_extended && usable(Attribute::kPortCountersExtended);
  plan.counters_superseded = reads_extended ? superseded_fields(plan.extended_advertised) : 0;
  // PortCounters is mandatory and never marked unsupported: it is the fallback when the
  // extended attribute is refused, and the next plan reads it again.
  const bool narrow_needed =
      !reads_extended || (plan.counters_advertised & ~plan.counters_superseded) != 0;
  if (narrow_needed) plan.counters.add(Attribute::kPortCounters);
  if (reads_extended) plan.counters.add(Attribute::kPortCountersExtended);
  plan.primary = narrow_needed ? Attribute::kPortCounters : Attribute::kPortCountersExtended;
  plan.idle.add(plan.primary);
  return plan;
}

PortPlan awaiting_capabilities(uint32_t node) {
  PortPlan plan;
  plan.node = node;
  plan.awaiting_capabilities = true;
  return plan;
}

RawSample annotated_sample(const PortPlan* plan, PortKey port, schema::Attribute attribute,
                           uint8_t subnet, const MadCompletion& reply, uint64_t cleared) {
  using schema::Attribute;
  RawSample s;
  s.port = port;
  s.subnet = subnet;
  s.attribute = attribute;
  s.received = reply.received;
  s.failure = reply.failure;
  s.mad_status = reply.mad_status;
  s.cleared = cleared;
  if (reply.failure != MadFailure::kNone) return s;
  const schema::Layout layout =
      plan != nullptr && attribute == Attribute::kPortExtendedSpeedsCounters
          ? plan->ext_speeds_layout
          : schema::Layout::kStandard;
  decode_fields(attribute, layout, reply.data, s);
  if (plan != nullptr && attribute == Attribute::kPortCounters) {
    s.advertised = plan->counters_advertised;
    s.superseded = plan->counters_superseded;
    s.narrow_fallback = plan->narrow_fallback;
  } else if (plan != nullptr && attribute == Attribute::kPortCountersExtended) {
    s.advertised = plan->extended_advertised;
  } else {
    s.advertised = advertised_fields(attribute, nullptr, layout);  // no capability bit needed
  }
  return s;
}

}  // namespace ibpulse::collector
