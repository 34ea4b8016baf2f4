#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "ber.h"
#include "health_flags.h"
#include "history.h"
#include "ibpulse/collector/link_capability.h"
#include "ibpulse/converters/if_mib.h"
#include "ibpulse/exporters/alerts/health.h"

namespace ibpulse::exporters::alerts {
namespace {

using converters::Clock;
using converters::FabricSnapshot;
using converters::PortSnapshot;
using schema::CounterId;
using Kind = CounterSource::Kind;

constexpr float kAbsent = std::numeric_limits<float>::quiet_NaN();
constexpr double kBitsPerRsFecSymbol = 10;  // RS(528,514) and RS(544,514) work in GF(2^10)
constexpr std::array<std::string_view, kHealthReasonCount> kReasonNames = {
    "ber_above_spec", "effective_ber_above_spec", "ufm_window",
    "flapping",       "trained_below_capability", "error_burst"};
constexpr uint16_t kFailingReasons =
    kReasonBerAboveSpec | kReasonEffectiveBerAboveSpec | kReasonUfmWindow | kReasonFlapping;

CounterSource core(std::initializer_list<CounterId> ids) {
  CounterSource s{Kind::kFamily, 0, {}};
  for (const CounterId id : ids)
    s.members.push_back(schema::index_of(id));
  return s;
}

// The RS-FEC port total `name` (the unlabelled member of its family).
CounterSource rs_fec_total(std::string_view name) {
  CounterSource s{Kind::kFamily, 0, {}};
  const auto table = schema::counter_table();
  for (size_t i = schema::kCoreCounterCount; i < table.size(); ++i) {
    if (table[i].name == name && table[i].label.empty()) s.members.push_back(i);
  }
  return s;
}

CounterSource covered(size_t which) {
  return CounterSource{Kind::kCovered, which, {}};
}

// `key`'s entry in `ports` (sorted by key); null when it has none.
const PortHealth* find_health(const std::vector<PortHealth>& ports, collector::PortKey key) {
  const auto it =
      std::lower_bound(ports.begin(), ports.end(), key,
                       [](const PortHealth& h, collector::PortKey x) { return h.key < x; });
  return it != ports.end() && it->key == key ? &*it : nullptr;
}

}  // namespace

std::string_view health_state_name(HealthState state) {
  switch (state) {
    case HealthState::kOk:
      return "ok";
    case HealthState::kDegraded:
      return "degraded";
    case HealthState::kFailing:
      return "failing";
  }
  return "ok";
}

std::string_view health_reason_name(size_t bit) {
  return bit < kReasonNames.size() ? kReasonNames[bit] : "";
}

uint16_t health_rule_reasons(std::string_view state) {
  if (state == "ber-above-spec") {
    return kReasonBerAboveSpec | kReasonEffectiveBerAboveSpec | kReasonUfmWindow;
  }
  if (state == "link-flapping") return kReasonFlapping;
  if (state == "health-failing") return kFailingReasons;
  return 0;
}

HealthState health_state_of(uint16_t reasons) {
  if ((reasons & kFailingReasons) != 0) return HealthState::kFailing;
  return reasons != 0 ? HealthState::kDegraded : HealthState::kOk;
}

struct HealthEngine::Impl {
  explicit Impl(HealthOptions o)
      : options(std::move(o)),
        flagger(options),
        symbol(core({CounterId::kSymbolError}), options.ber_window),
        covered_symbol(covered(0), options.ber_window),
        uncorrectable(rs_fec_total("fec_uncorrectable_blocks"), options.ber_window),
        corrected(rs_fec_total("fec_corrected_symbols"), options.ber_window),
        covered_fec(covered(1), options.ber_window),
        corrected_recent(rs_fec_total("fec_corrected_symbols"), options.flap_window),
        flaps(core({CounterId::kLinkDowned, CounterId::kLinkErrorRecovery}), options.flap_window),
        burst(core({CounterId::kSymbolError, CounterId::kLocalLinkIntegrityErrors,
                    CounterId::kExcessiveBufferOverrunErrors}),
              options.flap_window) {
    if (options.ufm_windows.empty()) {
      for (const UfmWindow& w : default_ufm_windows())
        options.ufm_windows.push_back({w.speed, w.window, w.ber});
    }
    if (options.ber_method != BerMethod::kPoisson) {
      for (const UfmWindowSetting& w : options.ufm_windows)
        ufm.push_back(std::make_unique<CounterHistory>(core({CounterId::kSymbolError}), w.window));
    }
    for (CounterHistory* h : {&symbol, &covered_symbol, &uncorrectable, &corrected, &covered_fec,
                              &corrected_recent, &flaps, &burst})
      all.push_back(h);
    for (auto& h : ufm)
      all.push_back(h.get());
  }

  void index_ports(const FabricSnapshot& s);
  PortHealth port(const FabricSnapshot& s, size_t i, const collector::Port* tp) const;
  double spec_for(std::string_view speed) const;
  static std::vector<LinkHealth> links(const FabricSnapshot& s,
                                       const std::vector<PortHealth>& ports);

  // A restart's saved health (restore()): what it adds to a port's fresh evaluation, and until
  // when.
  struct Carried {
    std::array<Clock::time_point, kHealthReasonCount> reason_until{};
    uint32_t link_flaps = 0;
    Clock::time_point flaps_until{};
  };
  std::unordered_map<collector::PortKey, Carried, collector::PortKeyHash> carried;
  Clock::time_point carried_until{};  // the last deadline: then `carried` is dropped
  void add_carried(PortHealth& h, Clock::time_point now) const;

  HealthOptions options;
  detail::HealthFlagger flagger;
  CounterHistory symbol, covered_symbol, uncorrectable, corrected, covered_fec;
  CounterHistory corrected_recent, flaps, burst;
  std::vector<std::unique_ptr<CounterHistory>> ufm;  // per options.ufm_windows, if used
  std::vector<CounterHistory*> all;
  PortLayout layout;
};

void HealthEngine::Impl::index_ports(const FabricSnapshot& s) {
  const bool same =
      layout && layout->size() == s.ports.size() &&
      std::equal(layout->begin(), layout->end(), s.ports.begin(),
                 [](collector::PortKey k, const PortSnapshot& p) { return k == p.key; });
  if (same) return;
  auto keys = std::make_shared<std::vector<collector::PortKey>>();
  keys->reserve(s.ports.size());
  for (const auto& p : s.ports)
    keys->push_back(p.key);
  layout = std::move(keys);
}

double HealthEngine::Impl::spec_for(std::string_view speed) const {
  for (const auto& [name, spec] : options.ber_spec_by_speed) {
    if (name == speed) return spec;
  }
  return options.ber_spec;
}

namespace {

// Errors per bit over a window: NaN without covered time (or a link rate to turn it into bits).
float ratio(std::optional<Increase> errors, double bits) {
  if (bits <= 0) return kAbsent;
  return static_cast<float>(static_cast<double>(errors ? errors->delta : 0) / bits);
}

double covered_bits(std::optional<Increase> covered_ms, double bits_per_second) {
  return covered_ms ? static_cast<double>(covered_ms->delta) / 1000.0 * bits_per_second : 0;
}

}  // namespace

PortHealth HealthEngine::Impl::port(const FabricSnapshot& s, size_t i,
                                    const collector::Port* tp) const {
  PortHealth h;
  h.key = s.ports[i].key;
  const collector::LinkState link = tp ? tp->link : collector::LinkState{};
  const auto rate = static_cast<double>(converters::link_bits_per_second(link));
  const std::string_view speed = collector::speed_name(link);
  const double spec = spec_for(speed);

  const auto symbol_errors = symbol.increase(s, i);
  const double symbol_bits = covered_bits(covered_symbol.increase(s, i), rate);
  h.symbol_ber = ratio(symbol_errors, symbol_bits);
  if (options.ber_method != BerMethod::kUfm && symbol_errors &&
      ber_above_spec(symbol_errors->delta, symbol_bits, spec))
    h.reasons |= kReasonBerAboveSpec;

  const auto blocks = uncorrectable.increase(s, i);
  const double fec_bits = covered_bits(covered_fec.increase(s, i), rate);
  h.effective_ber = ratio(blocks, fec_bits);
  if (blocks && ber_above_spec(blocks->delta, fec_bits, spec))
    h.reasons |= kReasonEffectiveBerAboveSpec;
  const auto symbols = corrected.increase(s, i);
  h.raw_ber = symbols ? ratio(Increase{static_cast<uint64_t>(static_cast<double>(symbols->delta) *
                                                             kBitsPerRsFecSymbol),
                                       symbols->seconds},
                              fec_bits)
                      : kAbsent;
  const auto recent = corrected_recent.increase(s, i);
  h.fec_corrected_symbols_per_second =
      recent && recent->seconds > 0
          ? static_cast<float>(static_cast<double>(recent->delta) / recent->seconds)
          : kAbsent;

  const auto flapped = flaps.increase(s, i);
  h.link_flaps =
      flapped ? static_cast<uint32_t>(std::min<uint64_t>(flapped->delta, UINT32_MAX)) : 0;
  if (h.link_flaps > options.flap_limit) h.reasons |= kReasonFlapping;
  const auto burst_errors = burst.increase(s, i);
  if (burst_errors && burst_errors->delta > options.burst_errors) h.reasons |= kReasonErrorBurst;
  if (tp && tp->active() && s.topology && collector::link_capability(*s.topology, *tp).degraded())
    h.reasons |= kReasonTrainedBelowCapability;

  for (size_t w = 0; w < ufm.size(); ++w) {
    const UfmWindowSetting& setting = options.ufm_windows[w];
    if (!setting.speed.empty() && setting.speed != speed) continue;
    const auto errors = ufm[w]->increase(s, i);
    const UfmWindow window{setting.speed, setting.window, setting.ber};
    if (errors && static_cast<double>(errors->delta) > ufm_allowed_errors(window, rate))
      h.reasons |= kReasonUfmWindow;
  }
  h.state = health_state_of(h.reasons);
  return h;
}

void HealthEngine::Impl::add_carried(PortHealth& h, Clock::time_point now) const {
  const auto found = carried.find(h.key);
  if (found == carried.end()) return;
  const Carried& c = found->second;
  if (now < c.flaps_until) {
    h.link_flaps += c.link_flaps;
    if (h.link_flaps > options.flap_limit) h.reasons |= kReasonFlapping;
  }
  for (size_t bit = 0; bit < kHealthReasonCount; ++bit) {
    if (now < c.reason_until[bit]) h.reasons |= static_cast<uint16_t>(1u << bit);
  }
  h.state = health_state_of(h.reasons);
}

void HealthEngine::restore(const SavedHealth& saved, std::chrono::system_clock::time_point wall_now,
                           Clock::time_point now) {
  Impl& m = *impl_;
  const auto age = wall_now - std::chrono::system_clock::time_point(
                                  std::chrono::seconds(saved.saved_unix_seconds));
  // Until `window` has passed since the save, in this process's steady clock.
  const auto until = [&](std::chrono::milliseconds window) {
    return now + std::chrono::duration_cast<Clock::duration>(window - age);
  };
  std::chrono::milliseconds ufm{0};
  for (const UfmWindowSetting& w : m.options.ufm_windows)
    ufm = std::max(ufm, w.window);
  for (const SavedPortHealth& p : saved.ports) {
    Impl::Carried c;
    c.link_flaps = p.link_flaps;
    c.flaps_until = until(m.options.flap_window);
    const std::array<std::chrono::milliseconds, kHealthReasonCount> windows = {
        m.options.ber_window,         m.options.ber_window, ufm, m.options.flap_window,
        std::chrono::milliseconds(0),  // trained below capability: PortInfo says it again
        m.options.flap_window};
    for (size_t bit = 0; bit < kHealthReasonCount; ++bit) {
      if ((p.reasons >> bit & 1) != 0) c.reason_until[bit] = until(windows[bit]);
    }
    // The flaps that made a port flapping are carried as flaps: they lift it again by count.
    if ((p.reasons & kReasonFlapping) != 0) c.reason_until[3] = Clock::time_point{};
    for (const Clock::time_point t : c.reason_until)
      m.carried_until = std::max(m.carried_until, t);
    m.carried_until = std::max(m.carried_until, c.flaps_until);
    m.carried[p.key] = c;
  }
}

std::vector<LinkHealth> HealthEngine::Impl::links(const FabricSnapshot& s,
                                                  const std::vector<PortHealth>& ports) {
  std::vector<LinkHealth> out;
  if (!s.topology) return out;
  const auto find = [&](collector::PortKey k) { return find_health(ports, k); };
  for (const PortHealth& h : ports) {
    const collector::Port* tp = s.topology->find_port(h.key);
    if (tp == nullptr || !tp->remote || !(h.key < *tp->remote)) {
      // The lower end names the link; a peer only the other end's poller sees counts too.
      if (tp == nullptr || !tp->remote || find(*tp->remote) != nullptr) continue;
    }
    LinkHealth link;
    link.a = std::min(h.key, *tp->remote);
    link.b = std::max(h.key, *tp->remote);
    const PortHealth* peer = find(*tp->remote);
    link.reasons = h.reasons | (peer ? peer->reasons : 0);
    link.state = health_state_of(link.reasons);
    out.push_back(link);
  }
  std::sort(out.begin(), out.end(), [](const LinkHealth& x, const LinkHealth& y) {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  });
  return out;
}

HealthEngine::HealthEngine(HealthOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

HealthEngine::~HealthEngine() = default;

std::shared_ptr<const HealthSnapshot> HealthEngine::evaluate(
    const FabricSnapshot& s, std::chrono::system_clock::time_point wall) {
  Impl& m = *impl_;
  if (!m.carried.empty() && s.published >= m.carried_until) m.carried.clear();
  m.index_ports(s);
  auto out = std::make_shared<HealthSnapshot>();
  out->sequence = s.sequence;
  out->ports.reserve(s.ports.size());
  for (CounterHistory* h : m.all)
    h->begin(s, m.layout);
  // The topology's ports are sorted by key, as the snapshot's: walked along.
  const std::vector<collector::Port>* tports = s.topology ? &s.topology->ports : nullptr;
  size_t t = 0;
  constexpr size_t kBlock = CounterHistory::kBlock;
  for (size_t b = 0, first = 0; first < s.ports.size(); ++b, first += kBlock) {
    for (CounterHistory* h : m.all)
      h->gather(s, b);
    for (size_t i = first; i < std::min(s.ports.size(), first + kBlock); ++i) {
      const collector::PortKey key = s.ports[i].key;
      while (tports && t < tports->size() && (*tports)[t].key < key)
        ++t;
      const collector::Port* tp =
          tports && t < tports->size() && (*tports)[t].key == key ? &(*tports)[t] : nullptr;
      out->ports.push_back(m.port(s, i, tp));
      if (!m.carried.empty()) m.add_carried(out->ports.back(), s.published);
    }
  }
  for (CounterHistory* h : m.all)
    h->commit();
  out->links = m.links(s, out->ports);
  out->congestion = classify_congestion(s, m.options.congestion);
  m.flagger.apply(s, wall, *out);
  out->link_of_port.assign(out->ports.size(), HealthSnapshot::kNoLink);
  for (uint32_t l = 0; l < out->links.size(); ++l) {
    for (const collector::PortKey end : {out->links[l].a, out->links[l].b}) {
      if (const PortHealth* p = find_health(out->ports, end))
        out->link_of_port[static_cast<size_t>(p - out->ports.data())] = l;
    }
  }
  return out;
}

const PortHealth* HealthSnapshot::find_port(collector::PortKey key) const {
  return find_health(ports, key);
}

const LinkHealth* HealthSnapshot::find_link(collector::PortKey key) const {
  const PortHealth* port = find_port(key);
  if (port == nullptr) return nullptr;
  const auto i = static_cast<size_t>(port - ports.data());
  const uint32_t l = i < link_of_port.size() ? link_of_port[i] : kNoLink;  // none: no links
  return l == kNoLink ? nullptr : &links[l];
}

}  // namespace ibpulse::exporters::alerts
