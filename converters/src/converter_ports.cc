// The converter's ports: the topology that orders and names them, forgetting the ones gone
// from it, and a port's extra counters written copy-on-write (the index and the apply paths:
// converter.cc).
#include <algorithm>

#include "ibpulse/base/check.h"
#include "ibpulse/converters/converter.h"

namespace ibpulse::converters {

Converter::Converter(ConverterOptions options, collector::ClearRings* clears)
    : options_(options), clears_(clears) {}

void Converter::set_topology(std::shared_ptr<const collector::Topology> topology,
                             Clock::time_point now) {
  topology_ = std::move(topology);
  port_subnets_.clear();
  if (topology_ && topology_->subnets.size() > 1) {
    for (const collector::Port& p : topology_->ports)
      port_subnets_.emplace(p.key, p.subnet);
  }
  if (topology_) {
    if_indexes_.assign(*topology_);
    forget(interfaces_.update(*topology_, now, options_.not_present_grace));
    if (options_.shard.sharded()) forget_foreign_ports();
  }
  static const std::vector<collector::Port> kNoPorts;
  const auto& ports = topology_ ? topology_->ports : kNoPorts;
  const auto same_key = [&](const collector::Port& p, uint32_t slot) {
    return p.key == slot_keys_[slot];
  };
  if (std::equal(ports.begin(), ports.end(), topology_order_.begin(), topology_order_.end(),
                 same_key)) {
    return;  // the same ports (a PortInfo update): the layout stays
  }
  // Lay the states out anew in topology order; a topology port not read yet gets an empty
  // state now, so it will not land out of order when it is read.
  PortIndex index;
  std::vector<collector::PortKey> keys;
  decltype(states_) states;
  std::vector<uint8_t> read;
  std::vector<uint32_t> order;
  keys.reserve(ports.size());
  states.reserve(ports.size());
  read.reserve(ports.size());
  order.reserve(ports.size());
  const auto add = [&](collector::PortKey key, uint32_t old) {
    const auto slot = static_cast<uint32_t>(states.size());
    index.insert(key, slot);
    keys.push_back(key);
    if (old == PortIndex::kNone) {
      states.emplace_back();
      read.push_back(0);
    } else {
      states.push_back(std::move(states_[old]));
      read.push_back(read_[old]);
      read_[old] = 0;  // moved: not reported again below
    }
    return slot;
  };
  for (const collector::Port& p : ports) {
    const uint32_t known = index.find(p.key);  // a key listed twice shares one state
    order.push_back(known != PortIndex::kNone ? known : add(p.key, index_.find(p.key)));
  }
  topology_slots_ = states.size();
  for (size_t old = 0; old < states_.size(); ++old) {
    if (read_[old] != 0) add(slot_keys_[old], static_cast<uint32_t>(old));  // read, left discovery
  }
  index_ = std::move(index);
  slot_keys_ = std::move(keys);
  states_ = std::move(states);
  read_ = std::move(read);
  topology_order_ = std::move(order);
}

size_t Converter::port_count() const {
  return static_cast<size_t>(std::count(read_.begin(), read_.end(), uint8_t{1}));
}

void Converter::for_each_port(
    const std::function<void(collector::PortKey, const PortState&)>& f) const {
  for (size_t i = 0; i < states_.size(); ++i) {
    if (read_[i] != 0) f(slot_keys_[i], states_[i]);  // topology ports never read: no state
  }
}

void Converter::expire(Clock::time_point now) {
  forget(interfaces_.expired(now, options_.not_present_grace));
}

void Converter::forget_foreign_ports() {
  const auto foreign = [this](collector::PortKey k) { return !options_.shard.owns(k.node_guid); };
  auto keys = interfaces_.drop_gone_if(foreign);
  for (size_t slot = 0; slot < states_.size(); ++slot) {
    if (read_[slot] != 0 && foreign(slot_keys_[slot])) keys.push_back(slot_keys_[slot]);
  }
  forget(keys);
}

void Converter::forget(const std::vector<collector::PortKey>& keys) {
  for (const collector::PortKey& key : keys) {
    vl_traffic_.erase(key);
    forgotten_.insert(key);
    clears_asked_.erase(clears_asked_.lower_bound({key, 0}),
                        clears_asked_.upper_bound({key, 0xff}));
    const uint32_t slot = index_.find(key);
    if (slot == PortIndex::kNone) continue;
    // The slot stays until the next layout drops it (it is not read); a port that comes back
    // starts afresh from its first reading.
    states_[slot] = PortState{};
    read_[slot] = 0;
  }
}

void Converter::set_vl_wait_rate(PortState& p, size_t counter, double rate) {
  const size_t vl = schema::counter_table()[counter].label_value;
  const auto r = static_cast<float>(rate);
  // An unchanged rate (a VL that stays idle) leaves the block shared with the snapshots.
  if (p.extra && !p.extra->vl_wait_rate_differs(vl, r)) return;
  writable_extra(p).set_vl_wait_rate(vl, r);
}

ExtraCounters& Converter::writable_extra(PortState& p) {
  if (!p.extra || p.extra.use_count() > 1) {
    // Snapshots share the extra counters: copy before writing if one still holds them.
    p.extra =
        p.extra ? std::make_shared<ExtraCounters>(*p.extra) : std::make_shared<ExtraCounters>();
  } else {
    // Written in place: no snapshot holds it any more. The acquire pairs with the release in
    // the readers' last shared_ptr drop, so their reads happen before our writes.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *p.extra;
}

Outcome Converter::apply_reading(PortState& p, CounterState& st, const Reading& r, bool cleared,
                                 ApplyEvents& events) {
  const bool wide = r.source == Source::kWide;
  if (cleared) {
    rebase(st, r);  // the Set's response: the value after our clear
    ++p.own_clears;
    ++stats_.own_clears;
    events.own_clear = true;
    return {};
  }
  if (wide && p.own_clear_since_extended && st.source == Source::kWide && r.raw < st.last_raw) {
    rebase(st, r);  // hardware that clears the 64-bit copy with PortCounters: our clear
    return {};
  }
  return accumulate(st, r);
}

}  // namespace ibpulse::converters
