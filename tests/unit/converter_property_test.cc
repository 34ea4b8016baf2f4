// Property-based: random histories of traffic, reads, latches, foreign clears, our own clears
// and restarts (the state file) against a model of the hardware register and of the true count.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "ibpulse/converters/accumulator.h"
#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/state_file.h"
#include "ibpulse/converters/width.h"

namespace ibpulse::converters {
namespace {

enum class Op : uint8_t { kTraffic, kRead, kForeignClear, kOwnClear };

struct Event {
  Op op;
  uint64_t amount;  // kTraffic: events that happen
};

// A hardware counter: counts up to all ones and stays there.
struct Register {
  unsigned width = 0;
  uint64_t value = 0;
  void count(uint64_t n) { value = std::min(counter_max(width), value + n); }
};

rc::Gen<Event> events(uint64_t max_traffic) {
  return rc::gen::build<Event>(
      rc::gen::set(&Event::op, rc::gen::element(Op::kTraffic, Op::kTraffic, Op::kRead, Op::kRead,
                                                Op::kForeignClear, Op::kOwnClear)),
      rc::gen::set(&Event::amount, rc::gen::inRange<uint64_t>(0, max_traffic + 1)));
}

// The hardware register, and what truly happened since the last reading.
struct Model {
  Register reg;
  uint64_t scale = 1;
  uint64_t true_since_read = 0, last_total = 0;
  bool foreign_since_read = false, latched_since_read = false, read_once = false;

  // A reading took the exported total to `total`: it never decreases, and without a latch or
  // a foreign clear since the last reading it grew by exactly the true count.
  void check_reading(uint64_t total) {
    RC_ASSERT(total >= last_total);
    if (read_once && !latched_since_read && !foreign_since_read) {
      RC_ASSERT(total - last_total == true_since_read * scale);
    }
    if (read_once && foreign_since_read && !latched_since_read) {
      RC_ASSERT(total - last_total <= true_since_read * scale);  // counts before it: gone
    }
    last_total = total;
    read_once = true;
    true_since_read = 0;
    foreign_since_read = latched_since_read = false;
  }
};

// Plays `history` on `m`. `read()` reads the register into the system under test and returns
// its total; `own_clear()` gives it the Set's response (the register is 0 by then) and returns
// its total; `after(i)` runs after event i.
template <typename ReadFn, typename ClearFn, typename AfterFn>
void play(const std::vector<Event>& history, Model& m, ReadFn read, ClearFn own_clear,
          AfterFn after) {
  for (size_t i = 0; i < history.size(); ++i) {
    const Event& e = history[i];
    switch (e.op) {
      case Op::kTraffic:
        if (m.reg.value + e.amount >= counter_max(m.reg.width)) m.latched_since_read = true;
        m.reg.count(e.amount);
        m.true_since_read += e.amount;
        break;
      case Op::kForeignClear:
        m.reg.value = 0;
        m.foreign_since_read = true;
        break;
      case Op::kOwnClear:
        // As the poller does it: a read, then at once the Set, whose response is the baseline.
        if (!m.read_once) break;
        m.check_reading(read());
        m.reg.value = 0;
        RC_ASSERT(own_clear() == m.last_total);  // our clear loses nothing and adds nothing
        break;
      case Op::kRead:
        m.check_reading(read());
        break;
    }
    after(i);
  }
}

// Every width: totals never decrease; between two readings with no latch and no foreign clear
// in between, the total grows by exactly the true count; our own clears lose nothing.
RC_GTEST_PROP(AccumulatorProperty, MonotonicAndExactWithoutLatchOrForeignClear, ()) {
  const auto width = *rc::gen::element(2u, 4u, 8u, 16u, 32u);
  const uint8_t scale = *rc::gen::element<uint8_t>(1, 4);
  const auto history = *rc::gen::container<std::vector<Event>>(events(counter_max(width) / 2));
  Model m{Register{width}, scale};
  CounterState state;
  const auto reading = [&](uint64_t raw) {
    return Reading{raw, static_cast<uint8_t>(width), scale, Source::kNarrow};
  };
  play(
      history, m,
      [&] {
        accumulate(state, reading(m.reg.value));
        return state.total;
      },
      [&] {
        rebase(state, reading(0));
        return state.total;
      },
      [](size_t) {});
}

// End to end through the converter with the threshold policy: a poller that clears at once
// what the converter asks keeps a 16-bit counter from ever latching, so the exported total is
// the true total exactly, however long the history.
RC_GTEST_PROP(ConverterProperty, ThresholdClearsKeepNarrowCountersExact, ()) {
  const auto traffic = *rc::gen::container<std::vector<uint64_t>>(
      rc::gen::inRange<uint64_t>(0, counter_max(16) / 4 - 1));
  collector::ClearRings rings(1, 8);
  collector::ClearRing& ring = rings.ring(0);
  Converter converter({ClearPolicy::kThreshold}, &rings);
  Register reg{16};
  uint64_t true_total = 0;
  auto now = Clock::time_point{} + std::chrono::hours(1);
  const auto read = [&](uint64_t cleared) {
    collector::RawSample s;
    s.port = {0x10, 1};
    s.attribute = schema::Attribute::kPortCounters;
    s.received = now;
    s.field_count = static_cast<uint8_t>(schema::fields_of(s.attribute).size());
    s.advertised = 1;  // SymbolErrorCounter only
    s.values[0] = reg.value;
    s.cleared = cleared;
    converter.apply(s);
  };
  read(0);
  true_total = reg.value;
  for (const uint64_t n : traffic) {
    now += std::chrono::seconds(1);
    reg.count(n);
    true_total += n;
    RC_ASSERT(reg.value < counter_max(16));
    read(0);
    collector::ClearRequest request;
    if (ring.pop(request)) {
      RC_ASSERT(request.fields == 1u);
      reg.value = 0;  // the Set, right after the read
      read(request.fields);
    }
    const auto* state = converter.state({0x10, 1});
    RC_ASSERT(state->core[0].total == true_total);
  }
}

// Through the converter, with restarts: the state is saved, a new converter loads it, and the
// history goes on (traffic may happen while it is down). Totals never decrease, a restart
// changes no total, and between two readings with no latch and no foreign clear the total grows
// by exactly the true count, across restarts too.
RC_GTEST_PROP(ConverterProperty, RestartsThroughTheStateFileLoseNothing, ()) {
  struct Choice {
    size_t field;
    unsigned width;
    uint64_t scale;
  };
  // SymbolErrorCounter (16 bits), LinkDownedCounter (8), PortXmitData (32, dwords x 4).
  const auto fields = schema::fields_of(schema::Attribute::kPortCounters);
  const auto index = [&](std::string_view name) {
    return static_cast<size_t>(
        std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.name == name; }) -
        fields.begin());
  };
  const Choice choice = *rc::gen::element(Choice{index("SymbolErrorCounter"), 16, 1},
                                          Choice{index("LinkDownedCounter"), 8, 1},
                                          Choice{index("PortXmitData"), 32, 4});
  const auto history =
      *rc::gen::container<std::vector<Event>>(events(counter_max(choice.width) / 2));
  const auto restarts =
      *rc::gen::container<std::vector<bool>>(history.size(), rc::gen::arbitrary<bool>());
  const collector::PortKey key{0x10, 1};
  auto topology = std::make_shared<collector::Topology>();
  topology->subnet_prefix = 0xfe80000000000000ull;
  topology->ports.emplace_back().key = key;
  auto converter = std::make_unique<Converter>(ConverterOptions{});
  converter->set_topology(topology);
  Model m{Register{choice.width}, choice.scale};
  auto now = Clock::time_point{} + std::chrono::hours(1);
  const auto total = [&] {
    const auto* state = converter->state(key);
    const size_t counter = schema::sinks_of(schema::Attribute::kPortCounters)[choice.field].counter;
    return state ? state->core[counter].total : 0;
  };
  const auto sample = [&](uint64_t cleared) {
    collector::RawSample s;
    s.port = key;
    s.attribute = schema::Attribute::kPortCounters;
    s.received = now;
    s.field_count = static_cast<uint8_t>(fields.size());
    s.advertised = uint64_t{1} << choice.field;
    s.values[choice.field] = m.reg.value;
    s.cleared = cleared;
    converter->apply(s);
  };
  play(
      history, m,
      [&] {
        now += std::chrono::seconds(1);
        sample(0);
        return total();
      },
      [&] {
        sample(uint64_t{1} << choice.field);  // the Set's response: the new baseline
        return total();
      },
      [&](size_t i) {
        if (!restarts[i]) return;
        const std::string saved = encode_state(*converter, topology->subnet_prefix);
        converter = std::make_unique<Converter>(ConverterOptions{});
        const auto loaded = apply_state(saved, *topology, *converter);
        RC_ASSERT(loaded.ok());
        converter->set_topology(topology);
        RC_ASSERT(total() == m.last_total);
      });
}

}  // namespace
}  // namespace ibpulse::converters
