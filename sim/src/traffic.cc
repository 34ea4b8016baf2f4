#include "ibpulse/sim/traffic.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "pma_reader.h"

namespace ibpulse::sim {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kLinesPerBatch = 4096;

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

std::string set_line(const DumpPort& p, std::string_view attribute, std::string_view field,
                     uint64_t value) {
  return fmt::format("PerformanceSet \"{}\"[{}] {}.{}={}", p.node, p.port, attribute, field, value);
}

// Amounts are cumulative: each tick injects what the active time so far calls for minus what
// was already injected, so totals are exact whatever the ticks' lengths.
double due(double per_second, Clock::duration active) {
  return per_second *
         static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(active).count()) /
         1e9;
}

struct ErrorRule {
  const PmaAttribute* attribute;
  std::string field;
  double per_second;
  Clock::duration active{};
  uint64_t injected = 0;
};

struct Target {
  const DumpPort* port;
  std::vector<ErrorRule> rules;
  std::map<std::string_view, CounterValues> current;  // attribute name -> values read this tick
  bool readable = false;
};

struct Direction {
  size_t from;
  size_t to;
  double bytes_per_s;
  Clock::duration active{};  // time both ends were readable
  uint64_t dwords = 0;
  uint64_t pkts = 0;
};

class Generator {
 public:
  Generator(const FabricState& fabric, const TrafficOptions& options, std::vector<DumpPort> ports,
            std::unique_ptr<PmaReader> reader)
      : fabric_(fabric), options_(options), ports_(std::move(ports)), reader_(std::move(reader)) {}

  Status prepare() {
    std::map<std::pair<std::string_view, unsigned>, size_t> index;
    for (const auto& p : ports_) {
      if (!p.linked() || !p.active()) continue;
      index.emplace(std::pair<std::string_view, unsigned>{p.node, p.port}, targets_.size());
      targets_.push_back(Target{&p, {}, {}, false});
      report_.ports.push_back(PortInjection{p.node, p.port, 0, 0, 0, 0, {}, {}});
    }
    if (targets_.empty()) return Err("the fabric has no active link");
    for (size_t i = 0; i < targets_.size(); ++i) {
      const DumpPort& p = *targets_[i].port;
      auto peer = index.find({p.remote_node, p.remote_port});
      if (peer == index.end() || options_.utilization <= 0) continue;
      auto rate = link_bytes_per_second(p.width, p.speed);
      if (!rate) return Err("unknown link rate {} {} at {}[{}]", p.width, p.speed, p.node, p.port);
      directions_.push_back(Direction{i, peer->second, *rate * options_.utilization, {}, 0, 0});
    }
    return attach_error_rules();
  }

  Result<TrafficReport> run(const std::atomic<bool>& stop, const TickFn& on_tick) {
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

 private:
  Status attach_error_rules() {
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

  Status read_counters(Target& t) {
    std::set<const PmaAttribute*> needed;
    if (!directions_.empty()) {
      needed.insert(find_pma_attribute("PortCounters"));
      needed.insert(find_pma_attribute("PortCountersExtended"));
    }
    for (const auto& r : t.rules)
      needed.insert(r.attribute);
    t.current.clear();
    for (const PmaAttribute* a : needed) {
      auto values = reader_->read(*a, t.port->lid, t.port->port);
      if (!values) return Error{values.error()};
      t.current.emplace(a->name, std::move(*values));
    }
    return Ok{};
  }

  void add(size_t target, std::string_view attribute, std::string_view field, uint64_t delta) {
    Target& t = targets_[target];
    const uint64_t now = t.current[attribute][std::string(field)];
    const uint64_t value = saturating_add(now, delta);
    const PmaField* f = find_pma_field(*find_pma_attribute(attribute), field);
    if (f->width < 64 && value >= (uint64_t{1} << f->width) - 1) {
      auto& latched = report_.ports[target].latched;
      const std::string name = fmt::format("{}.{}", attribute, field);
      if (std::find(latched.begin(), latched.end(), name) == latched.end()) latched.push_back(name);
    }
    lines_.push_back(set_line(*t.port, attribute, field, value));
  }

  void move_traffic(Clock::duration dt) {
    for (auto& d : directions_) {
      if (!targets_[d.from].readable || !targets_[d.to].readable) continue;
      d.active += dt;
      const auto dwords_due = static_cast<uint64_t>(due(d.bytes_per_s, d.active) / 4);
      const uint64_t pkts_due =
          (dwords_due * 4 + options_.packet_bytes - 1) / options_.packet_bytes;
      const uint64_t dwords = dwords_due - d.dwords;
      const uint64_t pkts = pkts_due - d.pkts;
      if (dwords == 0) continue;
      d.dwords = dwords_due;
      d.pkts = pkts_due;
      for (std::string_view attribute : {"PortCounters", "PortCountersExtended"}) {
        add(d.from, attribute, "PortXmitData", dwords);
        add(d.from, attribute, "PortXmitPkts", pkts);
        add(d.to, attribute, "PortRcvData", dwords);
        add(d.to, attribute, "PortRcvPkts", pkts);
      }
      add(d.from, "PortCountersExtended", "PortUnicastXmitPkts", pkts);
      add(d.to, "PortCountersExtended", "PortUnicastRcvPkts", pkts);
      report_.ports[d.from].xmit_data_dwords += dwords;
      report_.ports[d.from].xmit_pkts += pkts;
      report_.ports[d.to].rcv_data_dwords += dwords;
      report_.ports[d.to].rcv_pkts += pkts;
    }
  }

  void inject_errors(Clock::duration dt) {
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (!targets_[i].readable) continue;
      for (auto& r : targets_[i].rules) {
        r.active += dt;
        const auto total = static_cast<uint64_t>(due(r.per_second, r.active));
        const uint64_t n = total - r.injected;
        if (n == 0) continue;
        r.injected = total;
        add(i, r.attribute->name, r.field, n);
        report_.ports[i].errors[fmt::format("{}.{}", r.attribute->name, r.field)] += n;
      }
    }
  }

  Status tick(Clock::duration dt) {
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

  const FabricState& fabric_;
  const TrafficOptions& options_;
  std::vector<DumpPort> ports_;
  std::unique_ptr<PmaReader> reader_;
  std::vector<Target> targets_;
  std::vector<Direction> directions_;
  std::vector<std::string> lines_;
  TrafficReport report_;
};

}  // namespace

std::optional<double> link_bytes_per_second(std::string_view width, std::string_view speed) {
  static const std::map<std::string_view, double> kLanes = {
      {"1x", 1}, {"2x", 2}, {"4x", 4}, {"8x", 8}, {"12x", 12}};
  // Signalling rate -> data rate per lane after 8b/10b (SDR-QDR) or 64b/66b (FDR, EDR).
  static const std::map<std::string_view, double> kLaneGbps = {
      {"2.5G", 2.0}, {"5.0G", 4.0}, {"10.0G", 8.0}, {"14G", 13.64}, {"25G", 25.0}};
  auto lanes = kLanes.find(width);
  auto gbps = kLaneGbps.find(speed);
  if (lanes == kLanes.end() || gbps == kLaneGbps.end()) return std::nullopt;
  return lanes->second * gbps->second * 1e9 / 8;
}

Result<TrafficReport> run_traffic(const FabricState& fabric, const TrafficOptions& options,
                                  const std::atomic<bool>& stop, const TickFn& on_tick) {
  if (options.utilization < 0 || options.utilization > 1) {
    return Err("utilization must be between 0 and 1, got {}", options.utilization);
  }
  if (options.utilization == 0 && options.errors.empty()) {
    return Err("nothing to generate: give a utilization above 0 or error rules");
  }
  if (options.packet_bytes == 0) return Err("packet size must be positive");
  auto ports = dump_ports(fabric);
  if (!ports) return Error{ports.error()};
  if (!options.nodes.empty()) {
    const std::set<std::string_view> keep(options.nodes.begin(), options.nodes.end());
    std::erase_if(*ports, [&](const DumpPort& p) { return !keep.contains(p.node); });
  }
  auto reader = PmaReader::open();
  if (!reader) return Error{reader.error()};
  Generator generator(fabric, options, std::move(*ports), std::move(*reader));
  if (auto prepared = generator.prepare(); !prepared) return Error{prepared.error()};
  return generator.run(stop, on_tick);
}

Result<uint64_t> bump_counter(const FabricState& fabric, const PortSpec& spec,
                              std::string_view attribute_name, std::string_view field_name,
                              uint64_t by) {
  const PmaAttribute* attribute = find_pma_attribute(attribute_name);
  if (attribute == nullptr || find_pma_field(*attribute, field_name) == nullptr) {
    return Err("unknown counter {}.{}", attribute_name, field_name);
  }
  auto ports = dump_ports(fabric);
  if (!ports) return Error{ports.error()};
  const DumpPort* port = find_port(*ports, spec.node, spec.port);
  if (port == nullptr) return Err("no port {}[{}] in the fabric", spec.node, spec.port);
  if (port->lid == 0) return Err("{}[{}] has no LID (is it down?)", spec.node, spec.port);
  auto reader = PmaReader::open();
  if (!reader) return Error{reader.error()};
  auto values = (*reader)->read(*attribute, port->lid, port->port);
  if (!values) return Error{values.error()};
  const uint64_t target = saturating_add(values->find(field_name)->second, by);
  auto reply = console(fabric).send(set_line(*port, attribute_name, field_name, target));
  if (!reply) return Error{reply.error()};
  const auto at = reply->rfind("set to ");
  if (at == std::string::npos) return Err("unexpected ibsim reply: {}", *reply);
  return std::strtoull(reply->c_str() + at + 7, nullptr, 10);
}

}  // namespace ibpulse::sim
