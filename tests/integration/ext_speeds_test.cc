// PortExtendedSpeedsCounters in its RS-FEC layout, end to end: ibsim does not answer the
// attribute and cannot show RS-FEC, so the test PMA responder (tests/tools/pma_responder,
// `--ext-speeds-layout rsfec`) answers it for Hca2, with the values pma_emulation.h documents:
// 16-bit fields port*100 + f + 1, 32-bit fields (port*100 + f + 1) * 100000 + (f + 1) * 10 * s
// (s: whole seconds since the responder started). The daemon reads it with
// collect.ext-speeds-layout rsfec (ibsim's links are SDR: auto would not read it at all).
// The responder also answers PortSamplesControl with Tick 1: Hca2's PortXmitWait tick, where
// ibsim's own PMAs answer none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "sim_fabric.h"
#include "snmp_client.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

class ExtSpeeds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("ibpulse-ext-speeds-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    responder_ = fabric().start_client(
        {PMA_RESPONDER, "--ready-file", (dir_ / "ready").string(), "--ext-speeds-layout", "rsfec"},
        dir_ / "responder.log", {{"SIM_SET_ISSM", "1"}}, "Hca2");
    for (int i = 0; i < 100 && !std::filesystem::exists(dir_ / "ready"); ++i)
      std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(std::filesystem::exists(dir_ / "ready")) << "the responder did not start";
  }
  static void TearDownTestSuite() {
    sim::terminate(responder_, 3s);
    std::filesystem::remove_all(dir_);
  }
  static inline std::filesystem::path dir_;
  static inline sim::ProcessRef responder_;
};

// The responder's formula for port 1's 32-bit RS-FEC field f after s seconds.
uint64_t rs_fec(unsigned f, uint64_t s) {
  return (uint64_t{100} + f + 1) * 100000 + (uint64_t{f} + 1) * 10 * s;
}

TEST_F(ExtSpeeds, RsFecCountersAreReadExactlyPerPortAndPerLane) {
  const std::string labels =
      "node_guid=\"" + guid_text(fabric().port("Hca2", 1).node_guid) + "\",port=\"1\"";
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "500ms",
                      "--poll.details-interval", "1s", "--counters.publish-interval", "200ms",
                      "--state.save-interval", "off", "--collect.ext-speeds-layout", "rsfec",
                      "--collect.lanes", "true", "--snmp.community", "public", "--snmp.listen",
                      "127.0.0.1:0"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  std::string scrape;
  double corrected = -1;
  // Two readings a second or more apart: the totals have moved with the responder's clock.
  ASSERT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        corrected = metric_value(scrape, "infiniband_port_fec_corrected_symbols_total", labels);
        return corrected >= static_cast<double>(rs_fec(16, 2));
      },
      30s))
      << scrape;
  // Every field of one answer is from the same second s: PortFECCorrectedSymbolCtr (f 16)
  // gives s, and every other RS-FEC counter of the port must agree with it exactly.
  const auto total = static_cast<uint64_t>(corrected);
  ASSERT_EQ((total - rs_fec(16, 0)) % 170, 0u) << total;
  const uint64_t s = (total - rs_fec(16, 0)) / 170;
  const auto value = [&](const std::string& name, const std::string& extra = "") {
    return metric_value(scrape, "infiniband_port_" + name + "_total", labels + extra);
  };
  EXPECT_EQ(value("fec_correctable_blocks"), static_cast<double>(rs_fec(14, s)));
  EXPECT_EQ(value("fec_uncorrectable_blocks"), static_cast<double>(rs_fec(15, s)));
  for (unsigned lane = 0; lane < 12; ++lane) {
    EXPECT_EQ(value("fec_correctable_symbols", ",lane=\"" + std::to_string(lane) + "\""),
              static_cast<double>(rs_fec(2 + lane, s)))
        << lane;
  }
  EXPECT_EQ(value("sync_header_error"), 101);  // the same counter in both layouts
  EXPECT_EQ(value("unknown_block"), 102);
  // Nothing of the older layout: its lanes are reserved in this one.
  EXPECT_EQ(value("error_detection", ",lane=\"0\""), -1);
  EXPECT_EQ(value("fec_correctable_blocks", ",lane=\"0\""), -1);

  // SNMP: IBPULSE-MIB's ibpulsePortTable, columns 3-5, at Hca2/1's ifIndex. Read later than
  // the scrape: the same formula, a second at least as late.
  const std::string target = " 127.0.0.1:" + std::to_string(d.snmp_port());
  std::string if_index;
  for (const auto& [oid, name] :
       parse_varbinds(snmp_tool("snmpbulkwalk -v2c -c public -On -Oq -t 2" + target +
                                " 1.3.6.1.2.1.31.1.1.1.1")
                          .out)) {
    if (name == "Hca2/1") if_index = oid.substr(oid.rfind('.') + 1);
  }
  ASSERT_FALSE(if_index.empty());
  const std::string entry = ".1.3.6.1.4.1.8072.9999.9999.1.4.1.1.";
  auto got = parse_varbinds(snmp_tool("snmpget -v2c -c public -On -Oq -t 2" + target + " " + entry +
                                      "3." + if_index + " " + entry + "5." + if_index)
                                .out);
  ASSERT_EQ(got.count(entry + "5." + if_index), 1u);
  const uint64_t snmp_corrected = std::stoull(got[entry + "5." + if_index]);
  ASSERT_GE(snmp_corrected, total);
  ASSERT_EQ((snmp_corrected - rs_fec(16, 0)) % 170, 0u) << snmp_corrected;
  const uint64_t snmp_s = (snmp_corrected - rs_fec(16, 0)) / 170;
  EXPECT_EQ(std::stoull(got[entry + "3." + if_index]), rs_fec(14, snmp_s));
}

// `ibpulse query --collect.ext-speeds-layout rsfec` decodes the same answer at the RS-FEC offsets;
// the default (legacy) reads the per-lane block counters there instead.
TEST_F(ExtSpeeds, QueryDecodesTheLayoutItIsTold) {
  const std::string lid = std::to_string(fabric().lid("Hca2", 1));
  const auto rsfec = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", lid, "1",
                                    "--collect.ext-speeds-layout", "rsfec", "--json"});
  ASSERT_EQ(rsfec.exit_code, 0) << rsfec.err;
  const auto j = nlohmann::json::parse(rsfec.out);
  EXPECT_EQ(j["ext_speeds_layout"], "rsfec");
  const auto& pesc = j["PortExtendedSpeedsCounters"];
  const uint64_t corrected = pesc["PortFECCorrectedSymbolCtr"].get<uint64_t>();
  ASSERT_EQ((corrected - rs_fec(16, 0)) % 170, 0u) << pesc.dump();
  const uint64_t s = (corrected - rs_fec(16, 0)) / 170;
  EXPECT_EQ(pesc["PortFECCorrectableBlockCtr"].get<uint64_t>(), rs_fec(14, s));
  EXPECT_EQ(pesc["FECCorrectableSymbolCtrLane3"].get<uint64_t>(), rs_fec(5, s));
  EXPECT_EQ(pesc["SyncHeaderErrorCounter"].get<uint64_t>(), 101u);
  const auto legacy = fabric().exec({IBPULSE_BINARY_FOR_TESTS, "query", lid, "1", "--json"});
  ASSERT_EQ(legacy.exit_code, 0) << legacy.err;
  const auto l = nlohmann::json::parse(legacy.out)["PortExtendedSpeedsCounters"];
  EXPECT_FALSE(l.contains("PortFECCorrectedSymbolCtr")) << l.dump();
  EXPECT_TRUE(l.contains("FECCorrectableBlockCtrLane3"));
}

// The default, auto, on ibsim: SDR links read no extended speeds counters at all, and no
// PortInfoExtended is asked (ibsim's PMAs lack the RS-FEC bit: decided without an SMP).
TEST_F(ExtSpeeds, AutoReadsNothingOnSdrLinks) {
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "300ms",
                      "--poll.details-interval", "300ms", "--counters.publish-interval", "200ms",
                      "--state.save-interval", "off", "--collect.lanes", "true"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  ASSERT_TRUE(d.wait_for_sweeps(4)) << d.log();
  const std::string scrape = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(scrape.find("infiniband_port_sync_header_error_total{"), std::string::npos);
  EXPECT_EQ(scrape.find("infiniband_port_fec_corrected_symbols_total{"), std::string::npos);
  EXPECT_NE(scrape.find("infiniband_port_symbol_error_total{"), std::string::npos) << scrape;
  EXPECT_EQ(d.log().find("ext_speeds_layout_fallback"), std::string::npos) << d.log();
}

std::string port_labels(const std::string& node) {
  return "node_guid=\"" + guid_text(fabric().port(node, 1).node_guid) + "\",port=\"1\"";
}

// congestion.xmit-wait-tick auto: a node's Tick + 1 byte times of a lane at its link's speed.
// ibsim's links are 4X SDR (4 ns a byte): Hca2's Tick 1 is 8 ns; Hca1's PMA (ibsim) answers no
// PortSamplesControl, so the default 4 ns. Per VL, the wait ratio of a 16-bit counter latched at
// all ones is absent, and back once it reads exactly again.
TEST_F(ExtSpeeds, WaitTicksFromPortSamplesControlAndPerVlRatios) {
  fabric().set("PerformanceSet \"Hca1\"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters5=0");
  Daemon d(fabric(), {"--web.listen-address", "127.0.0.1:0", "--poll.counters-interval", "300ms",
                      "--poll.details-interval", "300ms", "--counters.publish-interval", "200ms",
                      "--state.save-interval", "off", "--collect.vl", "true"});
  ASSERT_TRUE(d.wait_for("event=ready", 10s)) << d.log();
  std::string scrape;
  const auto value = [&](const std::string& name, const std::string& node,
                         const std::string& extra = "") {
    return metric_value(scrape, "infiniband_port_" + name, port_labels(node) + extra);
  };
  ASSERT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        return value("xmit_wait_tick_seconds", "Hca2") == 8e-9 &&
               value("vl_xmit_wait_ratio", "Hca1", ",vl=\"5\"") == 0;
      },
      20s))
      << scrape;
  EXPECT_EQ(value("xmit_wait_tick_seconds", "Hca1"), 4e-9);
  EXPECT_EQ(value("vl_xmit_wait_ratio", "Hca1", ",vl=\"0\""), 0);
  EXPECT_EQ(value("vl_xmit_wait_ratio", "Hca1", ",vl=\"15\""), 0);

  fabric().set("PerformanceSet \"Hca1\"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters5=65535");
  ASSERT_TRUE(eventually(
      [&] {
        scrape = http_get(d.web_port(), "/metrics");
        return value("vl_xmit_wait_ratio", "Hca1", ",vl=\"5\"") == -1;  // absent
      },
      20s))
      << scrape;
  EXPECT_EQ(value("vl_xmit_wait_ratio", "Hca1", ",vl=\"0\""), 0) << "the other VLs go on";
  EXPECT_EQ(value("vl_xmit_wait_ticks_total", "Hca1", ",vl=\"5\""), 65535);
  fabric().set("PerformanceSet \"Hca1\"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters5=0");
}

}  // namespace
}  // namespace ibpulse::testing
