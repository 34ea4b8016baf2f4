// The poller's scheduled reads: plans per port, due items issued into the engine's backlog,
// completions annotated into RawSamples for the ring, and the sweep each belongs to.
#include <fmt/format.h>

#include "ibpulse/base/check.h"
#include "ibpulse/base/log_text.h"
#include "poller_state.h"

namespace ibpulse::collector {

using namespace poller_detail;  // NOLINT(google-build-using-namespace): this module's own
using namespace std::chrono_literals;

void Poller::State::rebuild_plans() {
  if (layouts.mode() != options.ext_speeds_layout)
    layouts = ExtSpeedsLayouts(options.ext_speeds_layout);
  plans.assign(topology.ports.size(), PortPlan{});
  for (size_t i = 0; i < topology.ports.size(); ++i)
    plans[i] = plan_for(topology.ports[i]);
  // A clear waits for a read of its attribute: drop those no plan reads any more.
  pending_clears.keep_only([&](PortKey port, Attribute a) { return reads(port, a); });
}

PortPlan Poller::State::plan_for(const Port& port) {
  const uint64_t guid = port.key.node_guid;
  const auto found = node_index.find(guid);
  const uint32_t node = found != node_index.end() ? found->second : 0;
  if (capabilities.pending(guid)) return awaiting_capabilities(node);
  const auto off = unsupported.find(guid);
  const PmaCapabilities* caps = capabilities.find(guid);
  PortPlan plan = plan_port(port, node, caps, off != unsupported.end() ? &off->second : nullptr,
                            options.no_extended_nodes.contains(guid),
                            layouts.mode() != ExtSpeedsLayoutMode::kAuto);
  plan.narrow_fallback = capabilities.given_up(guid);
  if (plan.details.contains(Attribute::kPortExtendedSpeedsCounters))
    choose_layout(port, caps, plan);
  return plan;
}

void Poller::State::choose_layout(const Port& port, const PmaCapabilities* caps, PortPlan& plan) {
  const LayoutDecision d = layouts.decide(caps, port, smps_available());
  if (d.layout) {
    plan.ext_speeds_layout = *d.layout;
    if (d.fallback) warn_layout_fallback(port.key.node_guid, d.reason);
    return;
  }
  plan.awaiting_layout = true;
  AttributeList details;
  for (const Attribute a : plan.details) {
    if (a != Attribute::kPortExtendedSpeedsCounters) details.add(a);
  }
  plan.details = details;
}

void Poller::State::warn_layout_fallback(uint64_t guid, std::string_view reason) {
  const bool every_node = !smps_available();
  if (!layout_fallback_warned.insert(every_node ? 0 : guid).second) return;
  warn(fmt::format(
      "event=ext_speeds_layout_fallback{} reason=\"{}\" note=\"PortExtendedSpeedsCounters is "
      "read in its pre-RS-FEC layout; set collect.ext-speeds-layout to choose\"",
      every_node ? std::string() : " node_guid=" + guid_string(guid), log_text(reason)));
}

void Poller::State::replan(size_t index) {
  if (index < topology.ports.size() && index < plans.size())
    plans[index] = plan_for(topology.ports[index]);
}

bool Poller::State::reads(PortKey key, Attribute attribute) const {
  const Port* port = topology.find_port(key);
  return port != nullptr &&
         plans[static_cast<size_t>(port - topology.ports.data())].reads(attribute);
}

void Poller::State::issue(const Scheduler::Item& item, Clock::time_point now) {
  // A stale index would read one port and credit another.
  IBPULSE_CHECK(
      item.port_index < topology.ports.size() && topology.ports[item.port_index].key == item.port,
      "a scheduled read whose port index went stale");
  const Port& port = topology.ports[item.port_index];
  if (item.group == Group::kPortInfo) return issue_port_info(item, port);
  uint64_t sweep = 0;
  if (item.group == Group::kCounters && counts_in_sweep(port))
    sweep = sweeps.count_read(topology, item.port_index, now);
  const PortPlan& plan = plans[item.port_index];
  if (plan.awaiting_capabilities) {
    // Not read until its node's ClassPortInfo answers: stale in this sweep.
    if (sweep != 0) {
      finish_sweep_item(
          Context{item.port, plan.primary, item.group, sweep, 0, item.port_index, 0, true},
          MadFailure::kTimeout);
    }
    item_done(item);
    return;
  }
  const AttributeList& attributes = plan.of(item.group);
  if (attributes.size == 0) {
    item_done(item);
    return;
  }
  const uint32_t slot = new_item(item);
  items[slot].pending = static_cast<unsigned>(attributes.size);
  for (Attribute attribute : attributes) {
    // Only the primary read carries the sweep accounting.
    const bool primary = attribute == plan.primary;
    const uint64_t id = new_context(Context{item.port, attribute, item.group, primary ? sweep : 0,
                                            slot, item.port_index, 0, primary});
    engine->submit(pma_get(attribute, port.lid, item.port.port, plan.node, id));
  }
}

void Poller::State::issue_due(Clock::time_point now) {
  const size_t limit = max_backlog();
  while (engine->queued() < limit) {
    due_items.clear();
    scheduler.take_due(now, due_items, kItemsPerTake);
    for (const auto& item : due_items)
      issue(item, now);
    if (due_items.size() < kItemsPerTake) break;  // nothing more is due
  }
}

size_t Poller::State::max_backlog() const {
  return std::max<size_t>(kMinBacklog, size_t{kBacklogWindows} * engine->options().window);
}

void Poller::State::item_done(const Scheduler::Item& item) {
  if (scheduler.done(item, backend.now())) ++local_late;
}

void Poller::State::finish_sweep_item(const Context& c, MadFailure failure) {
  const auto ended =
      sweeps.completed(c.sweep, c.port, failure, backend.now(), options.intervals.counters);
  if (!ended) return;
  // Not one port answered, each read refused on the way out: the local port is the cause.
  if (ended->all_unreachable) local_port_down("a sweep found every port unreachable");
  {
    std::lock_guard lock(mutex);
    ++stats.sweeps;
    stats.last_sweep = ended->summary;
  }
  if (events.sweep_done) events.sweep_done(ended->summary);
}

void Poller::State::on_done(const MadCompletion& c) {
  const Context ctx = contexts.take(c.cookie);
  if (ctx.item == kSamplerItem) return sample_reply(ctx, c);
  if (ctx.item == kClearItem) return clear_reply(ctx, c);
  if (ctx.item == kTickItem) return tick_reply(ctx, c);
  if (ctx.item == kPartitionItem) return partition_reply(ctx, c);
  if (ctx.item == kSmInfoItem) return sm_info_reply(ctx, c);
  if (--items[ctx.item].pending == 0) {
    items.free(ctx.item);
    item_done(items[ctx.item].item);
  }
  if (ctx.group == Group::kPortInfo) return port_info_reply(ctx, c);
  const RawSample s = to_sample(ctx, c);
  if (c.failure == MadFailure::kStatus && ctx.attribute != Attribute::kPortCounters) {
    if (unsupported[ctx.port.node_guid].insert(ctx.attribute).second) {
      rebuild_plans();
      auto info = schema::find_attribute(ctx.attribute);
      warn(fmt::format("event=attribute_unsupported node_guid={} attribute={} mad_status=0x{:04x}",
                       guid_string(ctx.port.node_guid), info ? info->name : "?", c.mad_status));
    }
  }
  if (c.failure == MadFailure::kUnreachable && ctx.primary) {
    std::lock_guard lock(mutex);
    rediscover_requested = true;  // a link may have gone: look again soon
    pending_work.store(true);
  }
  // Counted locally and published once per loop turn: no lock per MAD on the hot path.
  ++local_samples;
  if (!ring.push(s)) ++local_drops;
  if (!pending_clears.empty() && c.failure == MadFailure::kNone) clear_after_read(ctx);
  if (ctx.primary) finish_sweep_item(ctx, c.failure);
}

RawSample Poller::State::to_sample(const Context& ctx, const MadCompletion& c) const {
  return annotated_sample(ctx.index < plans.size() ? &plans[ctx.index] : nullptr, ctx.port,
                          ctx.attribute, options.subnet, c, ctx.cleared);
}

}  // namespace ibpulse::collector
