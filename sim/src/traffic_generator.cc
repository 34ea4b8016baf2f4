#include "traffic_generator.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <set>
#include <thread>

namespace ibpulse::sim {
namespace {

constexpr size_t kLinesPerBatch = 4096;

// Amounts are cumulative: each tick injects what the active time so far calls for minus what
// was already injected, so totals are exact whatever the ticks' lengths.
double due(double per_second, Generator::Clock::duration active) {
  return per_second *
         static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(active).count()) /
         1e9;
}

}  // namespace

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

std::string set_line(const DumpPort& p, std::string_view attribute, std::string_view field,
                     uint64_t value) {
  return fmt::format("PerformanceSet \"{}\"[{}] {}.{}={}", p.node, p.port, attribute, field, value);
}

Status Generator::prepare() {
  std::vector<const DumpPort*> driven;
  for (const auto& p : ports_) {
    if (!p.linked() || !p.active()) continue;
    driven.push_back(&p);
    targets_.push_back(Target{&p, {}, std::nullopt, {}, {}, false});
    report_.ports.push_back(PortInjection{p.node, p.port, 0, 0, 0, 0, {}, {}, 0, ""});
  }
  if (targets_.empty()) return Err("the fabric has no active link");
  auto plan = plan_congestion(driven, options_);
  if (!plan) return Error{plan.error()};
  if (auto directed = add_directions(*plan); !directed) return directed;
  attach_wait_rules(*plan);
  return attach_error_rules();
}

// Each port transmits at the share its congestion role gives it, else at the utilization; the
// peer's Rcv counters follow.
Status Generator::add_directions(const std::vector<CongestedPort>& plan) {
  std::map<std::pair<std::string_view, unsigned>, size_t> index;
  for (size_t i = 0; i < targets_.size(); ++i) {
    index.emplace(
        std::pair<std::string_view, unsigned>{targets_[i].port->node, targets_[i].port->port}, i);
  }
  for (size_t i = 0; i < targets_.size(); ++i) {
    const DumpPort& p = *targets_[i].port;
    const double share =
        plan[i].role == CongestionRole::kNone ? options_.utilization : plan[i].utilization;
    auto peer = index.find({p.remote_node, p.remote_port});
    if (peer == index.end() || share <= 0) continue;
    auto rate = link_bytes_per_second(p.width, p.speed);
    if (!rate) return Err("unknown link rate {} {} at {}[{}]", p.width, p.speed, p.node, p.port);
    directions_.push_back(Direction{i, peer->second, *rate * share, {}, 0, 0});
  }
  return Ok{};
}

void Generator::attach_wait_rules(const std::vector<CongestedPort>& plan) {
  const double per_second = xmit_wait_per_second(options_);
  for (size_t i = 0; i < targets_.size(); ++i) {
    report_.ports[i].role = role_name(plan[i].role);
    if (plan[i].role == CongestionRole::kNone || per_second <= 0) continue;
    targets_[i].wait = ErrorRule{counters_, "PortXmitWait", per_second, {}, 0};
  }
}

Result<TrafficReport> Generator::run(const std::atomic<bool>& stop, const TickFn& on_tick) {
  const auto start = Clock::now();
  auto last = start;
  while (true) {
    const auto next = last + options_.tick;
    while (Clock::now() < next && !stop.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const bool finished = stop.load() || (options_.duration_s && elapsed >= *options_.duration_s);
    if (options_.duration_s && elapsed > *options_.duration_s) {
      now = start + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(*options_.duration_s));
    }
    if (auto ticked = tick(now - last); !ticked) {
      return Error{ticked.error()};
    }
    last = now;
    report_.seconds = std::chrono::duration<double>(now - start).count();
    if (on_tick) on_tick(report_);
    if (finished) return report_;
  }
}

Status Generator::attach_error_rules() {
  for (const auto& spec : options_.errors) {
    const PmaAttribute* attribute = find_pma_attribute(spec.attribute);
    size_t matched = 0;
    for (auto& t : targets_) {
      if (spec.where && (spec.where->node != t.port->node ||
                         (spec.where->port != 0 && spec.where->port != t.port->port))) {
        continue;
      }
      t.rules.push_back(ErrorRule{attribute, spec.field, spec.per_second, {}, 0});
      ++matched;
    }
    if (matched == 0) {
      return Err("error rule {}.{} matches no active linked port", spec.attribute, spec.field);
    }
  }
  return Ok{};
}

Status Generator::read_counters(Target& t) {
  std::set<const PmaAttribute*> needed;
  if (!directions_.empty()) {
    needed.insert(counters_);
    needed.insert(extended_);
  }
  for (const auto& r : t.rules)
    needed.insert(r.attribute);
  if (t.wait) {
    needed.insert(counters_);
    needed.insert(&vl_xmit_wait_attribute());
  }
  t.current.clear();
  for (const PmaAttribute* a : needed) {
    auto values = reader_->read(*a, t.port->lid, t.port->port);
    if (!values) return Error{values.error()};
    t.current.emplace(a->name, std::move(*values));
  }
  return Ok{};
}

void Generator::add(size_t target, const PmaAttribute* attribute, std::string_view field,
                    uint64_t delta) {
  auto& pending = targets_[target].pending;
  const PmaField* f = find_pma_field(*attribute, field);
  auto same = std::find_if(pending.begin(), pending.end(), [&](const PendingAdd& a) {
    return a.attribute == attribute && a.field == f;
  });
  if (same == pending.end()) {
    pending.push_back(PendingAdd{attribute, f, delta});
  } else {
    same->delta = saturating_add(same->delta, delta);
  }
}

// One PerformanceSet line per port and field moved this tick: the value read + the summed deltas.
void Generator::write_pending() {
  for (size_t i = 0; i < targets_.size(); ++i) {
    Target& t = targets_[i];
    for (const PendingAdd& a : t.pending) {
      const uint64_t now = t.current[a.attribute->name][std::string(a.field->name)];
      const uint64_t value = saturating_add(now, a.delta);
      if (a.field->width < 64 && value >= (uint64_t{1} << a.field->width) - 1) {
        note_latched(i, fmt::format("{}.{}", a.attribute->name, a.field->name));
      }
      lines_.push_back(set_line(*t.port, a.attribute->name, a.field->name, value));
    }
    t.pending.clear();
  }
}

void Generator::note_latched(size_t target, std::string name) {
  auto& latched = report_.ports[target].latched;
  if (std::find(latched.begin(), latched.end(), name) == latched.end()) {
    latched.push_back(std::move(name));
  }
}

void Generator::move_traffic(Clock::duration dt) {
  for (auto& d : directions_) {
    if (!targets_[d.from].readable || !targets_[d.to].readable) continue;
    d.active += dt;
    const auto dwords_due = static_cast<uint64_t>(due(d.bytes_per_s, d.active) / 4);
    const uint64_t pkts_due = (dwords_due * 4 + options_.packet_bytes - 1) / options_.packet_bytes;
    const uint64_t dwords = dwords_due - d.dwords;
    const uint64_t pkts = pkts_due - d.pkts;
    if (dwords == 0) continue;
    d.dwords = dwords_due;
    d.pkts = pkts_due;
    for (const PmaAttribute* attribute : {counters_, extended_}) {
      add(d.from, attribute, "PortXmitData", dwords);
      add(d.from, attribute, "PortXmitPkts", pkts);
      add(d.to, attribute, "PortRcvData", dwords);
      add(d.to, attribute, "PortRcvPkts", pkts);
    }
    add(d.from, extended_, "PortUnicastXmitPkts", pkts);
    add(d.to, extended_, "PortUnicastRcvPkts", pkts);
    report_.ports[d.from].xmit_data_dwords += dwords;
    report_.ports[d.from].xmit_pkts += pkts;
    report_.ports[d.to].rcv_data_dwords += dwords;
    report_.ports[d.to].rcv_pkts += pkts;
  }
}

void Generator::inject_errors(Clock::duration dt) {
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (!targets_[i].readable) continue;
    for (auto& r : targets_[i].rules) {
      const uint64_t n = advance(r, dt);
      if (n == 0) continue;
      add(i, r.attribute, r.field, n);
      report_.ports[i].errors[fmt::format("{}.{}", r.attribute->name, r.field)] += n;
    }
  }
}

// PortXmitWait and its VL 0 copy move together; the copy, 16 bits wide, latches at once.
void Generator::inject_waits(Clock::duration dt) {
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (!targets_[i].readable || !targets_[i].wait) continue;
    const uint64_t n = advance(*targets_[i].wait, dt);
    if (n == 0) continue;
    add(i, counters_, "PortXmitWait", n);
    add(i, &vl_xmit_wait_attribute(), "PortVLXmitWaitCounters0", n);
    report_.ports[i].xmit_wait += n;
  }
}

// What a rule owes after `dt` more active time; the rule counts it as injected.
uint64_t Generator::advance(ErrorRule& rule, Clock::duration dt) {
  rule.active += dt;
  const auto total = static_cast<uint64_t>(due(rule.per_second, rule.active));
  const uint64_t n = total - rule.injected;
  rule.injected = total;
  return n;
}

Status Generator::tick(Clock::duration dt) {
  size_t unreadable = 0;
  for (auto& t : targets_) {
    auto read = read_counters(t);
    t.readable = read.ok();
    if (!read) {
      ++unreadable;
      spdlog::debug("traffic: skipping {}[{}] this tick: {}", t.port->node, t.port->port,
                    read.error());
    }
  }
  if (unreadable > 0) spdlog::warn("traffic: {} port(s) could not be read this tick", unreadable);
  lines_.clear();
  move_traffic(dt);
  inject_errors(dt);
  inject_waits(dt);
  write_pending();
  Console con = console(fabric_);
  for (size_t at = 0; at < lines_.size(); at += kLinesPerBatch) {
    const size_t n = std::min(kLinesPerBatch, lines_.size() - at);
    auto sent = con.send(std::span<const std::string>(lines_.data() + at, n));
    if (!sent) return Error{sent.error()};
  }
  report_.console_lines += lines_.size();
  ++report_.ticks;
  return Ok{};
}

}  // namespace ibpulse::sim
