// The poller's reads beside the scheduled ones: PortInfo refreshes (SMPs between discoveries),
// clears the converter asked for, each node's PortSamplesControl tick, the operator's samples.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "ibpulse/base/check.h"
#include "ibpulse/base/log_text.h"
#include "poller_state.h"

namespace ibpulse::collector {

using namespace poller_detail;  // NOLINT(google-build-using-namespace): this module's own
using namespace std::chrono_literals;

void Poller::State::enable_smp() {
  // The P_Key tables are read with SMPs too, after each discovery, whether or not PortInfo is
  // refreshed between discoveries.
  if (options.intervals.port_info.count() == 0 && !reads_partition_tables()) return;
  const auto s = engine->enable_smp(true);
  if (!s && !smp_warned) {
    smp_warned = true;
    warn(
        fmt::format("event=port_info_disabled error=\"{}\" note=\"port states are refreshed "
                    "by rediscovery only; no P_Key table is read\"",
                    log_text(s.error())));
  }
  // Plans are made during discovery, while the SMP class is lent to it: they counted on
  // asking PortInfoExtended, which cannot be asked after all.
  if (!s != smp_unavailable) {
    smp_unavailable = !s;
    rebuild_plans();
  }
}

bool Poller::State::smps_available() const {
  return options.intervals.port_info.count() > 0 && !smp_unavailable;
}

void Poller::State::issue_port_info(const Scheduler::Item& item, const Port& port) {
  if (!engine->smp_enabled()) {
    item_done(item);
    return;
  }
  const uint32_t slot = new_item(item);
  items[slot].pending = 1;
  MadRequest r;
  r.lid = port.lid;
  r.node = plans[item.port_index].node;
  r.mgmt_class = MadClass::kSubnetLid;
  r.attribute = kPortInfoAttribute;
  r.modifier = item.port.port;
  r.m_key = options.discovery.m_key.value_or(0);
  // The attribute is unused for an SMP: the group tells on_done() what came back.
  r.cookie = new_context(
      Context{item.port, Attribute::kPortCounters, Group::kPortInfo, 0, slot, item.port_index});
  engine->submit(r);
  if (!plans[item.port_index].awaiting_layout) return;
  // PortInfoExtended rides along: its Context's attribute marks it.
  ++items[slot].pending;
  r.attribute = kPortInfoExtendedAttribute;
  r.cookie = new_context(Context{item.port, Attribute::kPortExtendedSpeedsCounters,
                                 Group::kPortInfo, 0, slot, item.port_index});
  engine->submit(r);
}

void Poller::State::port_info_extended_reply(const Context& ctx, const MadCompletion& c) {
  const bool decided = c.failure == MadFailure::kNone
                           ? layouts.answered(ctx.port, decode_port_info_extended(c.data))
                           : layouts.failed(ctx.port, c.failure == MadFailure::kStatus);
  if (decided && ctx.index < topology.ports.size() && topology.ports[ctx.index].key == ctx.port)
    replan(ctx.index);
}

void Poller::State::port_info_reply(const Context& ctx, const MadCompletion& c) {
  if (ctx.attribute == Attribute::kPortExtendedSpeedsCounters)
    return port_info_extended_reply(ctx, c);
  if (c.failure != MadFailure::kNone) {
    ++local_port_info_failures;  // a port whose link is down may be unreachable: no alarm
    return;
  }
  ++local_port_info_reads;
  if (ctx.index >= topology.ports.size()) return;
  Port& port = topology.ports[ctx.index];
  IBPULSE_CHECK(port.key == ctx.port, "a PortInfo reply for another port");
  const LinkState fresh = link_state_from_port_info(c.data.data());
  const LinkChange change = link_change(port.link, fresh);
  // IB-SMA-MIB's port objects follow the port between discoveries too.
  const SmaPortInfo sma = sma_port_info(c.data.data());
  const bool refreshed = sma != port.sma;
  if (refreshed) port.sma = sma;
  if (!change.changed) {
    if (refreshed && events.port_refreshed) events.port_refreshed(port);
    return;
  }
  const LinkState before = port.link;
  port.link = fresh;
  ++local_port_changes;
  if (events.port_changed) events.port_changed(port, before);
  if (change.ask_layout) layouts.forget(port.key);
  if (change.rediscover) {
    std::lock_guard lock(mutex);
    rediscover_requested = true;
    pending_work.store(true);
  }
}

void Poller::State::clear_after_read(const Context& ctx) {
  if (ctx.index >= topology.ports.size()) return;
  const uint64_t fields = pending_clears.due(ctx.port, ctx.attribute);
  if (fields == 0) return;
  const Port& port = topology.ports[ctx.index];
  Context set = ctx;
  set.item = kClearItem;
  set.primary = false;  // its answer is a baseline, not the port's reading
  set.cleared = fields;
  engine->submit(pma_clear(ctx.attribute, port.lid, port.key.port, plans[ctx.index].node,
                           set.cleared, new_context(set)));
  ++local_clears_sent;
}

void Poller::State::clear_reply(const Context& ctx, const MadCompletion& c) {
  const RawSample s = to_sample(ctx, c);
  ++local_samples;
  if (!ring.push(s)) ++local_drops;
}

void Poller::State::take_clear_requests() {
  if (clears == nullptr) return;
  pending_clears.take(*clears, [&](PortKey port, Attribute a) { return reads(port, a); });
}

void Poller::State::ask_ticks() {
  while (const auto ask = ticks.next()) {
    const uint32_t node = plans.size() > ask->port_index ? plans[ask->port_index].node : 0;
    engine->submit(
        pma_get(Attribute::kPortSamplesControl, ask->lid, ask->port.port, node,
                new_context(Context{ask->port, Attribute::kPortSamplesControl, Group::kDetails, 0,
                                    kTickItem, static_cast<uint32_t>(ask->port_index)})));
  }
}

void Poller::State::tick_reply(const Context& ctx, const MadCompletion& c) {
  if (c.failure != MadFailure::kNone) {
    ticks.failed(ctx.port.node_guid, c.failure == MadFailure::kStatus, c.received);
    ++tick_failures[static_cast<size_t>(c.failure)];
    return;
  }
  ticks.answered(ctx.port.node_guid);
  ++tick_answers;
  RawSample s;
  s.port = ctx.port;
  s.subnet = options.subnet;
  s.attribute = Attribute::kPortSamplesControl;
  s.received = c.received;
  s.values[0] = sample_control_tick(c.data);
  s.field_count = 1;
  s.advertised = 1;
  ++local_samples;
  if (!ring.push(s)) ++local_drops;
}

bool Poller::State::reads_partition_tables() const {
  return options.partition_tables && events.partitions_read;
}

void Poller::State::read_partitions(Clock::time_point now) {
  if (!reads_partition_tables()) return;
  if (engine->smp_enabled()) {
    while (const auto ask = partition_reads.next()) {
      MadRequest r;
      r.lid = ask->lid;
      const auto found = node_index.find(ask->port.node_guid);
      r.node = found != node_index.end() ? found->second : 0;
      r.mgmt_class = MadClass::kSubnetLid;
      r.attribute = kPKeyTableAttribute;
      r.modifier = ask->modifier;
      r.m_key = options.discovery.m_key.value_or(0);
      // The attribute and group are unused: the item tells on_done() what came back.
      r.cookie = new_context(Context{ask->port, Attribute::kPortCounters, Group::kPortInfo, 0,
                                     kPartitionItem, ask->block});
      engine->submit(r);
    }
  }
  std::vector<PortPartitions> done = partition_reads.take_finished();
  partition_batch.insert(partition_batch.end(), std::make_move_iterator(done.begin()),
                         std::make_move_iterator(done.end()));
  if (partition_batch.empty()) return;
  if (!partition_reads.idle() && partition_batch.size() < kPartitionBatch &&
      now - partitions_handed < 1s)
    return;
  std::sort(partition_batch.begin(), partition_batch.end(),
            [](const PortPartitions& a, const PortPartitions& b) { return a.port < b.port; });
  events.partitions_read(std::exchange(partition_batch, {}));
  partitions_handed = now;
}

void Poller::State::partition_reply(const Context& ctx, const MadCompletion& c) {
  if (c.failure == MadFailure::kNone) {
    partition_reads.answered(ctx.port, ctx.index, c.data);
  } else {
    partition_reads.failed(ctx.port);
  }
}

Clock::time_point Poller::State::drive_sampling(Clock::time_point now) {
  return sampling.drive(
      now, topology,
      [this](uint32_t index, PortKey port, MadRequest& request) {
        send_sample_mad(index, port, request);
      },
      [this](PortKey port, const SampleResult& result, const SampleRequest& request,
             Clock::time_point when) { sample_ended(port, result, request, when); });
}

void Poller::State::send_sample_mad(uint32_t index, PortKey port, MadRequest& request) {
  const auto found = node_index.find(port.node_guid);
  request.node = found != node_index.end() ? found->second : 0;
  request.cookie = new_context(Context{port, static_cast<Attribute>(request.attribute),
                                       Group::kDetails, 0, kSamplerItem, index});
  engine->submit(request);
}

void Poller::State::sample_reply(const Context& ctx, const MadCompletion& c) {
  sampling.on_reply(ctx.index, c,
                    [this](PortKey port, const SampleResult& result, const SampleRequest& request,
                           Clock::time_point when) { sample_ended(port, result, request, when); });
}

void Poller::State::sample_ended(PortKey port, const SampleResult& result,
                                 const SampleRequest& request, Clock::time_point now) {
  if (result.outcome == SampleOutcome::kDone) {
    ++local_samples;
    if (!ring.push(sample_reading(port, options.subnet, result, request, now))) ++local_drops;
  }
  if (events.sampled) events.sampled(port, result, request);
}

}  // namespace ibpulse::collector
