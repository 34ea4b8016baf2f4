// Remote write over HTTPS with basic auth, from the daemon on the simulated fabric into a real
// VictoriaMetrics started with -tls and -httpAuth.*: the receiver is a remote-write.url map of
// the YAML config file (tls-ca-file, username, password-file), and the certificates are made
// at test time with the openssl command line in the test's own directory. The planted error
// count arrives exact; a wrong password is rejected (401), counted as failed and not retried; a
// CA that did not sign the server's certificate is a TLS error, retried, and nothing is sent.
// VictoriaMetrics 1.79 cannot ask for client certificates, so tls-cert-file/tls-key-file are
// checked against `openssl s_server -Verify`: the certificate is presented and verified.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon_client.h"
#include "eventually.h"
#include "remote_write_checks.h"
#include "sim_fabric.h"
#include "test_pki.h"
#include "tied_child.h"
#include "victoria_metrics.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

// The first line of `log` that holds `text` ("" when none does).
std::string line_with(const std::string& log, const std::string& text) {
  const size_t at = log.find(text);
  if (at == std::string::npos) return "";
  const size_t start = log.rfind('\n', at);
  return log.substr(start == std::string::npos ? 0 : start + 1,
                    log.find('\n', at) - (start == std::string::npos ? 0 : start + 1));
}

constexpr const char* kUser = "ibpulse";
constexpr const char* kPassword = "s3cret-Pw.42";
// curl's text for CURLE_PEER_FAILED_VERIFICATION: the server's chain does not verify.
constexpr const char* kPeerNotVerified = "SSL peer certificate or SSH remote key was not OK";

// Each test's own directory, with a CA, a server certificate it signed for 127.0.0.1
// (subjectAltName IP:127.0.0.1), a client certificate it signed, and another CA that signed
// neither; all made with the openssl command line (P-256 keys: fast).
class RemoteWriteTls : public ::testing::Test {
 protected:
  void SetUp() override {
    pki_.make_ca("ca", "ibpulse test CA");
    pki_.make_ca("other-ca", "a CA that signed nothing here");
    pki_.make_signed("server", "127.0.0.1",
                     "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    pki_.make_signed("client", "ibpulse-client", "extendedKeyUsage=clientAuth\n");
    ASSERT_TRUE(TestPki::openssl({"verify", "-CAfile", path("ca.pem"), path("server.pem")}));
  }

  std::string path(const std::string& name) const { return pki_.path(name); }
  std::string write(const std::string& name, const std::string& text) const {
    return pki_.write(name, text);
  }

  VictoriaMetrics::Options vm_options() const {
    return {.tls_cert_file = dir_ / "server.pem",
            .tls_key_file = dir_ / "server.key",
            .tls_ca_file = dir_ / "ca.pem",
            .username = kUser,
            .password = kPassword};
  }

  // The lines of a remote-write.url list item: the map of `url` and `keys` ("key: value").
  static std::string receiver_map(const std::string& url,
                                  const std::vector<std::pair<std::string, std::string>>& keys) {
    std::string yaml = "    - url: \"" + url + "\"\n";
    for (const auto& [key, value] : keys)
      yaml += "      " + key + ": \"" + value + "\"\n";
    return yaml;
  }
  // The daemon's flags, with a config file whose only receiver is `receiver` (receiver_map).
  std::vector<std::string> daemon_args(const std::string& receiver) const {
    const std::string config = write("ibpulse.yaml", "remote-write:\n  url:\n" + receiver);
    return remote_write_daemon_args({"--config", config});
  }

  TestPki pki_{"ibpulse-rw-tls"};
  const fs::path& dir_ = pki_.dir();
};

TEST_F(RemoteWriteTls, BasicAuthOverHttpsDeliversThePlantedErrorCountExact) {
  VictoriaMetrics vm(vm_options());
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  const std::string url = vm.url("/api/v1/write");
  ASSERT_TRUE(url.starts_with("https://127.0.0.1:")) << url;
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=437");
  Daemon d(fabric(), daemon_args(receiver_map(
                         url, {{"username", kUser},
                               {"password-file", write("password", std::string(kPassword) + "\n")},
                               {"tls-ca-file", path("ca.pem")}})));
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  const std::string symbol = port_selector(fabric(), "infiniband_port_symbol_error_total", "Hca2");
  EXPECT_TRUE(eventually([&] {
    const auto r = vm.query(symbol);
    return r.is_array() && r.size() == 1 && r[0].at("value")[1] == "437";
  })) << vm.query(symbol).dump()
      << d.log() << vm.log();
  fabric().set("PerformanceSet \"Hca2\"[1] PortCounters.SymbolErrorCounter=0");
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_GT(samples_total(metrics, url, "sent"), 0) << metrics;
  EXPECT_EQ(samples_total(metrics, url, "failed"), 0) << metrics;
  EXPECT_EQ(samples_total(metrics, url, "dropped"), 0) << metrics;
  const std::string log = d.stop();
  EXPECT_EQ(log.find("event=remote_write_retry"), std::string::npos) << log;
  EXPECT_EQ(log.find("event=remote_write_rejected"), std::string::npos) << log;
}

TEST_F(RemoteWriteTls, AWrongPasswordIsRejectedCountedAsFailedAndNotRetried) {
  VictoriaMetrics vm(vm_options());
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  const std::string url = vm.url("/api/v1/write");
  Daemon d(fabric(),
           daemon_args(receiver_map(url, {{"username", kUser},
                                          {"password-file", write("password", "not-it\n")},
                                          {"tls-ca-file", path("ca.pem")}})));
  ASSERT_TRUE(d.wait_for("event=remote_write_rejected", 30s)) << d.log();
  const std::string rejected = line_with(d.log(), "event=remote_write_rejected");
  EXPECT_NE(rejected.find("url=\"" + url + "\""), std::string::npos) << rejected;
  EXPECT_NE(rejected.find(" status=401 "), std::string::npos) << rejected;
  // The sender goes on with the next batches, the port series of later snapshots: they are
  // rejected and counted too (a retried batch would hold its shard, and nothing after it would
  // count), and nothing stays queued for another attempt.
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  const double at_ready = samples_total(http_get(d.web_port(), "/metrics"), url, "failed");
  EXPECT_GT(at_ready, 0);
  EXPECT_TRUE(eventually([&] {
    return samples_total(http_get(d.web_port(), "/metrics"), url, "failed") > at_ready;
  })) << d.log();
  EXPECT_TRUE(eventually([&] {
    return queue_samples(http_get(d.web_port(), "/metrics"), url) == 0;
  })) << http_get(d.web_port(), "/metrics");
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(samples_total(metrics, url, "sent"), 0) << metrics;
  EXPECT_EQ(samples_total(metrics, url, "dropped"), 0) << metrics;
  // VictoriaMetrics (asked with the right password) stored nothing.
  const auto stored = vm.query("count({__name__=~\"infiniband_.+\"})");
  EXPECT_TRUE(stored.is_array() && stored.empty()) << stored.dump();
  d.stop();
}

TEST_F(RemoteWriteTls, ACaThatDidNotSignTheServerIsATlsErrorRetriedAndNothingIsSent) {
  VictoriaMetrics vm(vm_options());
  ASSERT_TRUE(vm.wait_ready(30s)) << vm.log();
  const std::string url = vm.url("/api/v1/write");
  Daemon d(fabric(), daemon_args(receiver_map(url, {{"username", kUser},
                                                    {"password-file", write("password", kPassword)},
                                                    {"tls-ca-file", path("other-ca.pem")}})));
  ASSERT_TRUE(d.wait_for("event=remote_write_retry", 30s)) << d.log();
  const std::string retry = line_with(d.log(), "event=remote_write_retry");
  EXPECT_NE(retry.find("url=\"" + url + "\""), std::string::npos) << retry;
  EXPECT_NE(retry.find(std::string(" status=0 error=\"") + kPeerNotVerified + "\""),
            std::string::npos)
      << retry;
  // The samples wait for the receiver: the queue grows with each snapshot, none are sent,
  // none failed.
  ASSERT_TRUE(d.wait_for("event=ready", 15s)) << d.log();
  const double at_ready = queue_samples(http_get(d.web_port(), "/metrics"), url);
  EXPECT_GT(at_ready, 0);
  EXPECT_TRUE(eventually([&] {
    return queue_samples(http_get(d.web_port(), "/metrics"), url) > at_ready;
  })) << http_get(d.web_port(), "/metrics");
  const std::string metrics = http_get(d.web_port(), "/metrics");
  EXPECT_EQ(samples_total(metrics, url, "sent"), 0) << metrics;
  EXPECT_EQ(samples_total(metrics, url, "failed"), 0) << metrics;
  const auto stored = vm.query("count({__name__=~\"infiniband_.+\"})");
  EXPECT_TRUE(stored.is_array() && stored.empty()) << stored.dump();
  const std::string log = d.stop();
  EXPECT_EQ(log.find("event=remote_write_rejected"), std::string::npos) << log;
}

// `openssl s_server` asking for a client certificate signed by the CA (-Verify, handshake
// fails without one). It never answers the POST (-www serves GETs only): the daemon's request
// times out and is retried, so only the handshakes it logs are asserted.
class ClientCertServer {
 public:
  ClientCertServer(const fs::path& dir, const std::string& ca, const std::string& cert,
                   const std::string& key)
      : log_(dir / "s_server.log"), port_(free_loopback_port(SOCK_STREAM)) {
    const auto program = sim::find_program("openssl");
    if (!program || port_ == 0) return;
    pid_ = spawn_tied_child(
        program->string(),
        {"openssl", "s_server", "-accept", "127.0.0.1:" + std::to_string(port_), "-cert", cert,
         "-key", key, "-CAfile", ca, "-Verify", "1", "-verify_return_error", "-www"},
        log_);
  }
  ~ClientCertServer() { stop_child(pid_, 5s); }
  ClientCertServer(const ClientCertServer&) = delete;
  ClientCertServer& operator=(const ClientCertServer&) = delete;

  std::string log() const { return read_text_file(log_); }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/api/v1/write"; }
  bool wait_for(const std::string& text, std::chrono::milliseconds timeout) const {
    return pid_ > 0 && eventually([&] { return log().find(text) != std::string::npos; }, timeout);
  }

 private:
  fs::path log_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

TEST_F(RemoteWriteTls, AClientCertificateIsPresentedAndVerifiedByTheServer) {
  ClientCertServer server(dir_, path("ca.pem"), path("server.pem"), path("server.key"));
  ASSERT_TRUE(server.wait_for("ACCEPT", 10s)) << server.log();
  {
    // Without tls-cert-file/tls-key-file the handshake fails: a TLS error, retried.
    Daemon d(fabric(), daemon_args(receiver_map(server.url(), {{"tls-ca-file", path("ca.pem")},
                                                               {"concurrency", "1"},
                                                               {"timeout", "2s"}})));
    EXPECT_TRUE(server.wait_for("peer did not return a certificate", 30s)) << server.log();
    ASSERT_TRUE(d.wait_for("event=remote_write_retry", 30s)) << d.log();
    EXPECT_NE(line_with(d.log(), "event=remote_write_retry").find(" status=0 error=\""),
              std::string::npos)
        << d.log();
    EXPECT_EQ(server.log().find("depth=0 CN = ibpulse-client"), std::string::npos) << server.log();
    d.stop();
  }
  Daemon d(fabric(), daemon_args(receiver_map(server.url(), {{"tls-ca-file", path("ca.pem")},
                                                             {"tls-cert-file", path("client.pem")},
                                                             {"tls-key-file", path("client.key")},
                                                             {"concurrency", "1"},
                                                             {"timeout", "2s"}})));
  // The server verified the daemon's certificate: its subject, then verify return:1.
  EXPECT_TRUE(server.wait_for("depth=0 CN = ibpulse-client\nverify return:1", 30s))
      << server.log() << d.log();
  d.stop();
}

}  // namespace
}  // namespace ibpulse::testing
