#include "ibpulse/converters/snapshot.h"

#include <algorithm>
#include <bit>

#include "ibpulse/converters/converter.h"

namespace ibpulse::converters {
namespace {

using schema::CounterId;

void fill(PortSnapshot& out, const Converter::PortState& p) {
  // Only the counters read (`present`): the others are still at 0, so their lines of the state
  // need not be read.
  CoreTotals totals{};
  for (uint64_t todo = p.present; todo != 0; todo &= todo - 1) {
    const auto c = static_cast<size_t>(std::countr_zero(todo));
    totals[c] = p.core.total(c);
  }
  out.totals.assign(totals);
  out.saturated = p.core.saturated() & p.present;
  out.present = p.present;
  out.awaiting = p.core.sourced() & ~p.present;
  out.ietf_extended = p.ietf_extended;
  out.flow_control_counted = p.flow_control_counted;
  out.last_read = p.last_read_any();
  out.discontinuity = p.discontinuity;
  out.lossy_intervals = p.lossy_intervals;
  out.foreign_clears = p.foreign_clears;
  out.own_clears = p.own_clears;
  out.source_switches = p.source_switches;
  out.covered_symbol_ms = p.covered_symbol_ms;
  out.covered_fec_ms = p.covered_fec_ms;
  out.extra = p.extra;
}

// `rates`: the port state's (zero for a port never read).
void set_utilisation(PortSnapshot& out, const std::array<float, schema::kCoreCounterCount>& rates,
                     const collector::LinkState& link) {
  const uint64_t bps = link_bits_per_second(link);
  if (bps == 0) return;
  const auto rate = [&](CounterId id) { return rates[schema::index_of(id)]; };
  out.utilisation_in =
      static_cast<float>(rate(CounterId::kRcvData) * 8.0 / static_cast<double>(bps));
  out.utilisation_out =
      static_cast<float>(rate(CounterId::kXmitData) * 8.0 / static_cast<double>(bps));
}

void set_xmit_wait_ratio(PortSnapshot& out, const Converter::PortState& p) {
  const size_t c = schema::index_of(CounterId::kXmitWait);
  if (!out.has(CounterId::kXmitWait) || (out.saturated >> c & 1) != 0) return;
  const double ratio = static_cast<double>(p.rates[c]) * out.xmit_wait_tick_ns * 1e-9;
  out.xmit_wait_ratio = static_cast<float>(std::min(1.0, ratio));
}

// The configured period, else the node's Tick at the port's speed, else the default.
float tick_period_ns(const std::optional<std::chrono::nanoseconds>& configured,
                     const uint8_t* node_tick, const collector::LinkState& link) {
  if (configured) return static_cast<float>(configured->count());
  if (node_tick != nullptr) {
    if (const auto ns = xmit_wait_tick_period_ns(*node_tick, link)) return static_cast<float>(*ns);
  }
  return static_cast<float>(schema::kDefaultXmitWaitTickNs);
}

std::shared_ptr<const PortVlTraffic> find_vl_traffic(const Converter::VlTrafficMap& map,
                                                     collector::PortKey key) {
  const auto it = map.find(key);
  return it == map.end() ? nullptr : it->second;
}

void set_interface(PortSnapshot& out, const InterfaceTable::State& state) {
  out.oper_status = state.status;
  out.last_change = state.last_change;
  out.mtu = state.mtu;
  out.phys_lid = state.phys_lid;
}

}  // namespace

uint64_t FabricSnapshot::saturated_counters() const {
  uint64_t n = 0;
  for (const PortSnapshot& p : ports)
    n += static_cast<uint64_t>(std::popcount(p.saturated));
  return n;
}

const PortSnapshot* FabricSnapshot::find(collector::PortKey key) const {
  const auto it =
      std::lower_bound(ports.begin(), ports.end(), key,
                       [](const PortSnapshot& p, collector::PortKey k) { return p.key < k; });
  return it != ports.end() && it->key == key ? &*it : nullptr;
}

std::shared_ptr<const FabricSnapshot> Converter::snapshot(Clock::time_point now,
                                                          uint64_t sequence) const {
  auto snap = std::make_shared<FabricSnapshot>();
  snap->sequence = sequence;
  snap->topology = topology_;
  snap->partitions = partitions_;
  snap->subnet_managers = subnet_managers_;
  snap->stats = stats_;
  snap->published = now;
  const size_t known = topology_ ? topology_->ports.size() : 0;
  // Ports gone from discovery, within the grace period: still reported (notPresent), with
  // their totals if they were read. Few: sorted apart, then merged into the topology's rows,
  // which are in key order already (sorting 70,000 rows would cost more than the snapshot).
  std::vector<PortSnapshot> gone;
  const auto gone_row = [&](collector::PortKey key) -> PortSnapshot& {
    PortSnapshot& out = gone.emplace_back();
    out.key = key;
    out.if_index = if_indexes_.find(key);
    out.in_topology = false;
    out.xmit_wait_tick_ns = tick_period_ns(options_.xmit_wait_tick, nullptr, {});
    if (const auto* state = interfaces_.find(key)) set_interface(out, *state);
    return out;
  };
  for (size_t i = topology_slots_; i < states_.size(); ++i) {
    if (read_[i] == 0) continue;
    PortSnapshot& out = gone_row(slot_keys_[i]);
    fill(out, states_[i]);
    out.vl_traffic = find_vl_traffic(vl_traffic_, slot_keys_[i]);
  }
  for (const collector::PortKey key : interfaces_.gone()) {
    if (state(key) == nullptr) gone_row(key);  // read ones are in already
  }
  std::sort(gone.begin(), gone.end(),
            [](const PortSnapshot& a, const PortSnapshot& b) { return a.key < b.key; });
  snap->ports.reserve(known + gone.size());
  size_t next_gone = 0;
  if (topology_) {
    const auto if_indexes = if_indexes_.by_topology_port();
    const auto interfaces = interfaces_.by_topology_port();
    // A node's ports are together (key order): its Tick is looked up once.
    uint64_t tick_node = 0;
    const uint8_t* node_tick = nullptr;
    // States are in topology order (set_topology): a sequential read, no lookups.
    for (size_t i = 0; i < known; ++i) {
      const collector::Port& port = topology_->ports[i];
      while (next_gone < gone.size() && gone[next_gone].key < port.key)
        snap->ports.push_back(std::move(gone[next_gone++]));
      PortSnapshot& out = snap->ports.emplace_back();
      out.key = port.key;
      out.if_index = if_indexes[i];
      set_interface(out, interfaces[i]);
      if (port.key.node_guid != tick_node && !node_ticks_.empty()) {
        tick_node = port.key.node_guid;
        const auto found = node_ticks_.find(tick_node);
        node_tick = found != node_ticks_.end() ? &found->second : nullptr;
      }
      out.xmit_wait_tick_ns = tick_period_ns(options_.xmit_wait_tick, node_tick, port.link);
      const uint32_t slot = topology_order_[i];
      if (read_[slot] != 0) {
        fill(out, states_[slot]);
        set_utilisation(out, states_[slot].rates, port.link);
        set_xmit_wait_ratio(out, states_[slot]);
      }
      if (!vl_traffic_.empty()) out.vl_traffic = find_vl_traffic(vl_traffic_, port.key);
    }
  }
  while (next_gone < gone.size())
    snap->ports.push_back(std::move(gone[next_gone++]));
  return snap;
}

}  // namespace ibpulse::converters
