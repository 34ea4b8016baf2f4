// Remote write's encoding: what a receiver decodes (snappy + libprotobuf) is /metrics' series.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "ibpulse/exporters/remote_write/encoder.h"
#include "ibpulse/exporters/remote_write/series_text.h"
#include "ibpulse/exporters/remote_write/writer.h"
#include "remote_write_decode.h"

namespace ibpulse::exporters::remote_write {
namespace {

using testing::decode_write_request;
using testing::WriteRequest;

TEST(RemoteWriteEncoding, DecodesBackWithLibprotobuf) {
  const std::vector<Sample> samples = {
      {R"(infiniband_port_symbol_error_total{node_guid="0x0002c90300000001",port="7"})", 12,
       1'700'000'000'123},
      {"ibpulse_sweeps_total", 3, 1'700'000'000'456},
  };
  auto body = encode_write_request(samples, {{"cluster", "a"}, {"port", "ignored"}});
  ASSERT_TRUE(body) << body.error();
  WriteRequest req;
  ASSERT_TRUE(decode_write_request(*body, req));
  ASSERT_EQ(req.timeseries_size(), 2);
  const auto& ts = req.timeseries(0);
  // Sorted by name; the external label added; the series' own `port` wins over the external one.
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& l : ts.labels())
    labels.emplace_back(l.name(), l.value());
  EXPECT_EQ(labels, (std::vector<std::pair<std::string, std::string>>{
                        {"__name__", "infiniband_port_symbol_error_total"},
                        {"cluster", "a"},
                        {"node_guid", "0x0002c90300000001"},
                        {"port", "7"}}));
  ASSERT_EQ(ts.samples_size(), 1);
  EXPECT_EQ(ts.samples(0).value(), 12);
  EXPECT_EQ(ts.samples(0).timestamp(), 1'700'000'000'123);
  EXPECT_EQ(testing::label_of(req.timeseries(1), "__name__"), "ibpulse_sweeps_total");
  EXPECT_EQ(req.timeseries(1).samples(0).value(), 3);
}

TEST(RemoteWriteEncoding, StaleMarkerKeepsItsBitPattern) {
  auto body = encode_write_request({{{"x{a=\"1\"}", stale_nan(), 5}}}, {});
  ASSERT_TRUE(body);
  WriteRequest req;
  ASSERT_TRUE(decode_write_request(*body, req));
  EXPECT_EQ(std::bit_cast<uint64_t>(req.timeseries(0).samples(0).value()), 0x7ff0000000000002ULL);
  EXPECT_TRUE(is_stale_marker(stale_nan()));
  EXPECT_FALSE(is_stale_marker(std::nan("")));
}

TEST(RemoteWriteSeriesText, ParsesTheRendererLines) {
  auto line = parse_line(
      R"(infiniband_port_info{node_guid="0x1",port="2",node_description="a \"q\" \\ b}"} 1)");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->name, "infiniband_port_info");
  EXPECT_EQ(line->value, 1);
  auto labels = series_labels(line->series);
  ASSERT_TRUE(labels) << labels.error();
  EXPECT_EQ((*labels)[1],
            (std::pair<std::string, std::string>("node_description", "a \"q\" \\ b}")));
  EXPECT_EQ(label_value(line->labels, "port"), "2");
  EXPECT_FALSE(parse_line("# HELP x y"));
  EXPECT_FALSE(parse_line(""));
  auto plain = parse_line("ibpulse_fabric_ports 42");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->series, "ibpulse_fabric_ports");
  EXPECT_EQ(plain->value, 42);
}

TEST(RemoteWriteSeriesText, ValuesAreFloat64ExactBelow2To53) {
  EXPECT_EQ(parse_value("9007199254740992"), 9007199254740992.0);  // 2^53
  EXPECT_EQ(parse_value("9007199254740993"), 9007199254740992.0);  // 2^53 + 1 rounds
  EXPECT_EQ(parse_value("0.25"), 0.25);
  EXPECT_TRUE(std::isinf(*parse_value("+Inf")));
  EXPECT_TRUE(std::isnan(*parse_value("NaN")));
  EXPECT_FALSE(parse_value("12x"));
}

TEST(RemoteWriteSelection, NamesAndPrefixes) {
  const MetricSelection all;
  EXPECT_TRUE(all.selects("anything"));
  const MetricSelection some({"infiniband_port_symbol_error_total", "infiniband_port_if_"});
  EXPECT_TRUE(some.selects("infiniband_port_symbol_error_total"));
  EXPECT_TRUE(some.selects("infiniband_port_if_in_octets_total"));
  EXPECT_FALSE(some.selects("infiniband_port_xmit_data_bytes_total"));
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write

namespace ibpulse::exporters::remote_write {
namespace {

TEST(RemoteWriteInstance, TheDaemonsOwnSeriesGetTheInstanceLabel) {
  const std::string text =
      "# HELP ibpulse_sweeps_total Full sweeps\n"
      "# TYPE ibpulse_sweeps_total counter\n"
      "ibpulse_sweeps_total 12\n"
      "ibpulse_shard_info{count=\"3\",index=\"2\",replicas=\"1\"} 1\n";
  EXPECT_EQ(
      with_instance(text, "coll\"a"),
      "# HELP ibpulse_sweeps_total Full sweeps\n"
      "# TYPE ibpulse_sweeps_total counter\n"
      "ibpulse_sweeps_total{instance=\"coll\\\"a\"} 12\n"
      "ibpulse_shard_info{instance=\"coll\\\"a\",count=\"3\",index=\"2\",replicas=\"1\"} 1\n");
}

// A reading sent again (resent unchanged, or after a layout change) carries the same Unix
// timestamp as the first time, though each snapshot measures the clocks' offset anew and the
// measurement moves by a millisecond; a real step of the system clock is taken.
TEST(RemoteWriteTimestamps, AReadingKeepsItsTimestampAcrossOffsetJitter) {
  using std::chrono::milliseconds;
  const converters::Clock::time_point read{std::chrono::seconds(5000)};
  StableClockOffset offset(milliseconds(1'795'714'000'000));
  const int64_t first = unix_ms(read, offset.current());
  bool stepped = true;
  for (const int64_t jitter : {-1, 1, 0, -1, 999, -1000}) {
    const auto used = offset.update(milliseconds(1'795'714'000'000 + jitter), &stepped);
    EXPECT_FALSE(stepped) << jitter;
    EXPECT_EQ(unix_ms(read, used), first) << jitter;
  }
  const auto after_step = offset.update(milliseconds(1'795'714'000'000 - 3'600'000), &stepped);
  EXPECT_TRUE(stepped);
  EXPECT_EQ(unix_ms(read, after_step), first - 3'600'000);
  EXPECT_EQ(offset.current(), after_step);
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write
