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

}  // namespace ibpulse::collector
