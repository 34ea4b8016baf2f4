// The poller's parts on their own: a read annotated from its port's plan (read_plan.h) and the
// sampling driver's timing (sampling_driver.h), without an engine or a fabric.
#include <gtest/gtest.h>

#include <array>

#include "read_plan.h"
#include "sampling_driver.h"

namespace ibpulse::collector {
namespace {

using namespace std::chrono_literals;
using schema::Attribute;
using Clock = std::chrono::steady_clock;

const PortKey kPort{0x1111, 3};

MadCompletion answered(std::span<const uint8_t> data, Clock::time_point at) {
  MadCompletion c;
  c.received = at;
  c.data = data;
  return c;
}

TEST(AnnotatedSample, CarriesWhatThePlanKnowsAboutThePort) {
  std::array<uint8_t, kMadDataSize> data{};
  data[4] = 0x12;  // SymbolErrorCounter high byte (PortCounters bit 32, 16 bits wide)
  PortPlan plan;
  plan.counters_advertised = 0x3f;
  plan.counters_superseded = 0x30;
  plan.narrow_fallback = true;
  plan.extended_advertised = 0xff;
  const auto at = Clock::now();
  const RawSample s =
      annotated_sample(&plan, kPort, Attribute::kPortCounters, 2, answered(data, at), 0x4);
  EXPECT_EQ(s.port, kPort);
  EXPECT_EQ(s.subnet, 2);
  EXPECT_EQ(s.received, at);
  EXPECT_EQ(s.advertised, 0x3fu);
  EXPECT_EQ(s.superseded, 0x30u);
  EXPECT_TRUE(s.narrow_fallback);
  EXPECT_EQ(s.cleared, 0x4u);
  EXPECT_GT(s.field_count, 0);
  EXPECT_EQ(s.values[0], 0x1200u);  // decoded raw: SymbolErrorCounter

  const RawSample ext =
      annotated_sample(&plan, kPort, Attribute::kPortCountersExtended, 0, answered(data, at));
  EXPECT_EQ(ext.advertised, 0xffu);
  EXPECT_EQ(ext.superseded, 0u);
  EXPECT_FALSE(ext.narrow_fallback);
}

TEST(AnnotatedSample, AFailedReadCarriesItsFailureOnly) {
  PortPlan plan;
  plan.counters_advertised = 0x3f;
  MadCompletion c;
  c.failure = MadFailure::kStatus;
  c.mad_status = 0x0c;
  const RawSample s = annotated_sample(&plan, kPort, Attribute::kPortCounters, 0, c);
  EXPECT_EQ(s.failure, MadFailure::kStatus);
  EXPECT_EQ(s.mad_status, 0x0c);
  EXPECT_EQ(s.field_count, 0);
  EXPECT_EQ(s.advertised, 0u);
}

TEST(AnnotatedSample, ExtendedSpeedsAreDecodedInThePlansLayout) {
  std::array<uint8_t, kMadDataSize> data{};
  PortPlan plan;
  plan.ext_speeds_layout = schema::Layout::kRsFec;
  const auto rsfec = annotated_sample(&plan, kPort, Attribute::kPortExtendedSpeedsCounters, 0,
                                      answered(data, Clock::now()));
  const auto standard = annotated_sample(nullptr, kPort, Attribute::kPortExtendedSpeedsCounters, 0,
                                         answered(data, Clock::now()));
  EXPECT_EQ(rsfec.layout, schema::Layout::kRsFec);
  EXPECT_EQ(standard.layout, schema::Layout::kStandard);
  EXPECT_NE(rsfec.advertised, standard.advertised);
}

// A port the fabric does not have waits `every`; a sample that failed ends, and the port's
// next one starts `every` later, not at once.
TEST(SamplingDriver, StartsSamplesOnTheirScheduleAndOnlyForPortsInTheFabric) {
  SamplingOptions options;
  options.ports = {kPort};
  options.selects = {0x0001};
  options.every = 10s;
  SamplingDriver driver;
  driver.reset(options);
  ASSERT_FALSE(driver.empty());
  std::vector<std::pair<uint32_t, MadRequest>> sent;
  std::vector<SampleOutcome> ended;
  const auto send = [&](uint32_t index, PortKey port, MadRequest& r) {
    EXPECT_EQ(port, kPort);
    sent.emplace_back(index, r);
  };
  const auto end = [&](PortKey port, const SampleResult& result, const SampleRequest&,
                       Clock::time_point) {
    EXPECT_EQ(port, kPort);
    ended.push_back(result.outcome);
  };
  const auto t0 = Clock::now();
  Topology empty;
  EXPECT_EQ(driver.drive(t0, empty, send, end), Clock::time_point::max());
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(driver.drive(t0 + 5s, empty, send, end), t0 + 10s);  // not before `every`

  Topology fabric;
  Port p;
  p.key = kPort;
  p.lid = 42;
  fabric.ports.push_back(p);
  driver.drive(t0 + 10s, fabric, send, end);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].first, 0u);
  EXPECT_EQ(sent[0].second.lid, 42);
  EXPECT_EQ(sent[0].second.attribute, static_cast<uint16_t>(Attribute::kPortSamplesControl));

  MadCompletion lost;
  lost.failure = MadFailure::kTimeout;
  lost.received = t0 + 11s;
  driver.on_reply(0, lost, end);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0], SampleOutcome::kFailed);
  EXPECT_EQ(driver.drive(t0 + 12s, fabric, send, end), t0 + 21s);
  EXPECT_EQ(sent.size(), 1u);
  driver.drive(t0 + 21s, fabric, send, end);
  EXPECT_EQ(sent.size(), 2u);
  driver.on_reply(7, lost, end);  // a port gone by a reconfiguration: ignored
  EXPECT_EQ(ended.size(), 1u);
}

TEST(SamplingDriver, ADoneSampleBecomesAReadingOfItsSelects) {
  SampleResult result;
  result.outcome = SampleOutcome::kDone;
  result.extended = true;
  result.counters = {100, 200};
  result.ran_for = 5ms;
  SampleRequest request;
  request.selects = {0x0001, 0x0002};
  const auto at = Clock::now();
  const RawSample s = sample_reading(kPort, 1, result, request, at);
  EXPECT_EQ(s.attribute, Attribute::kPortSamplesResultExtended);
  EXPECT_EQ(s.field_count, 2);
  EXPECT_EQ(s.values[1], 200u);
  EXPECT_EQ(s.selects[1], 0x0002);
  EXPECT_EQ(s.advertised, 0x3u);
  EXPECT_EQ(s.subnet, 1);
  EXPECT_EQ(s.received, at);
}

}  // namespace
}  // namespace ibpulse::collector
