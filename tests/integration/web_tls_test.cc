// The daemon's /metrics endpoint with a web config file (the Prometheus exporter-toolkit format:
// tls_server_config, basic_auth_users) on the simulated fabric, read by real clients: a real
// Prometheus scraping over https with basic auth, curl and openssl. Certificates are made at
// test time (TestPki), bcrypt hashes with libcrypt. Also IPv6 listen addresses, plain and TLS.
#include <crypt.h>
#include <gtest/gtest.h>

#include <array>
#include <fstream>

#include "daemon_client.h"
#include "eventually.h"
#include "prometheus_server.h"
#include "sim_fabric.h"
#include "test_pki.h"

namespace ibpulse::testing {
namespace {

using namespace std::chrono_literals;

SimFabric& fabric() {
  return SimFabricEnvironment::fabric();
}

constexpr const char* kUser = "prometheus";
constexpr const char* kPassword = "scr4pe:me";  // a colon in a password is allowed
constexpr const char* kOtherUser = "grafana";
constexpr const char* kOtherPassword = "dashb0ards";
constexpr int kFabricPorts = 12;

// A bcrypt hash of `password` with `prefix` ($2a$, $2b$, $2y$ hash alike for ASCII), as
// htpasswd -B or the exporter-toolkit's docs make them.
std::string bcrypt(const std::string& password, const std::string& prefix, unsigned long cost) {
  std::array<char, CRYPT_GENSALT_OUTPUT_SIZE> salt{};
  EXPECT_NE(crypt_gensalt_rn("$2b$", cost, nullptr, 0, salt.data(), salt.size()), nullptr);
  crypt_data data{};
  std::string hash = crypt_r(password.c_str(), salt.data(), &data);
  EXPECT_EQ(hash.size(), 60u) << hash;
  return prefix + hash.substr(4);
}

struct Curl {
  int exit_code = -1;
  int status = 0;  // the HTTP status, 0 when none came
  std::string headers, body, err;
};

// curl with `args`, its response head and body kept apart.
Curl curl(const TestPki& pki, std::vector<std::string> args) {
  const std::string head_file = pki.path("curl-head");
  const std::string body_file = pki.path("curl-body");
  std::filesystem::remove(head_file);
  std::filesystem::remove(body_file);
  args.insert(args.begin(), {"curl", "-sS", "-g", "--max-time", "20", "-D", head_file, "-o",
                             body_file, "-w", "%{http_code}"});
  const auto run = sim::run_command(args, {}, 30s);
  Curl out;
  if (!run) {
    out.err = run.error();
    return out;
  }
  out.exit_code = run->exit_code;
  out.status = std::atoi(run->out.c_str());
  out.err = run->err;
  out.headers = read_text_file(head_file);
  out.body = read_text_file(body_file);
  return out;
}

constexpr const char* kPortMetric = "infiniband_port_xmit_data_bytes_total{";

// curl until the answer is not a 200 without the fabric's metrics: the first snapshot is
// published shortly after `event=ready`.
Curl curl_published(const TestPki& pki, const std::vector<std::string>& args) {
  Curl out;
  eventually(
      [&] {
        out = curl(pki, args);
        return out.status != 200 || out.body.find(kPortMetric) != std::string::npos;
      },
      20s);
  return out;
}

class WebTls : public ::testing::Test {
 protected:
  void SetUp() override {
    pki_.make_ca("ca", "ibpulse test CA");
    pki_.make_ca("other-ca", "another CA");
    pki_.make_signed("server", "localhost",
                     "subjectAltName=IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n");
    pki_.make_signed("server2", "localhost",
                     "subjectAltName=IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n",
                     "other-ca");
    pki_.make_signed("client", "a scraper", "extendedKeyUsage=clientAuth\n");
    pki_.make_signed("rogue", "a scraper", "extendedKeyUsage=clientAuth\n", "other-ca");
  }

  // A web config with TLS from `server` and `tls_extra` lines, and the two users (a $2y$ hash
  // as htpasswd writes it, and a $2a$ one); `users` false: no basic auth. Relative paths: the
  // file's directory.
  std::string web_config(const std::string& server = "server", const std::string& tls_extra = "",
                         bool users = true) {
    std::string yaml = "tls_server_config:\n  cert_file: " + server +
                       ".pem\n  key_file: " + server + ".key\n" + tls_extra;
    if (users) {
      yaml += "basic_auth_users:\n  " + std::string(kUser) + ": " + bcrypt(kPassword, "$2y$", 10) +
              "\n  " + kOtherUser + ": " + bcrypt(kOtherPassword, "$2a$", 4) + "\n";
    }
    return pki_.write("web.yml", yaml);
  }

  static std::vector<std::string> daemon_args(const std::string& web_config,
                                              const std::string& listen = "127.0.0.1:0") {
    return {"--web.listen-address",        listen, "--web.config.file",        web_config,
            "--state.save-interval",       "off",  "--poll.counters-interval", "500ms",
            "--counters.publish-interval", "500ms"};
  }

  static std::string url(const Daemon& d, const std::string& path = "/metrics",
                         const std::string& host = "127.0.0.1",
                         const std::string& scheme = "https") {
    return scheme + "://" + host + ":" + std::to_string(d.web_port()) + path;
  }
  std::string path(const std::string& name) const { return pki_.path(name); }

  TestPki pki_{"ibpulse-web-tls"};
};

TEST_F(WebTls, PrometheusScrapesEveryPortOverTlsWithBasicAuth) {
  Daemon d(fabric(), daemon_args(web_config()));
  ASSERT_TRUE(d.wait_for("event=ready ports=12 stale=0", 20s)) << d.log();
  PrometheusServer::Options options;
  options.ca_file = path("ca.pem");
  options.username = kUser;
  options.password = kPassword;
  PrometheusServer prom(d.web_port(), options);
  ASSERT_TRUE(prom.wait_ready(30s)) << prom.log();
  EXPECT_EQ(prom.wait_at_least("count(infiniband_port_xmit_data_bytes_total)", kFabricPorts, 20s),
            kFabricPorts)
      << prom.log();
  EXPECT_EQ(prom.value("up{job=\"ibpulse\"}"), 1);
  EXPECT_EQ(prom.value("ibpulse_http_unauthorized_total"), 0);
  EXPECT_EQ(prom.value("ibpulse_http_tls_handshake_failures_total"), 0);
}

TEST_F(WebTls, EveryPathNeedsCredentialsAndRefusalsAreCounted) {
  Daemon d(fabric(), daemon_args(web_config()));
  ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
  const std::string ca = path("ca.pem");
  int refused = 0;
  for (const std::string p : {"/metrics", "/", "/metrics/self", "/nope"}) {
    Curl none = curl(pki_, {"--cacert", ca, url(d, p)});
    EXPECT_EQ(none.status, 401) << p << none.err;
    EXPECT_NE(none.headers.find("WWW-Authenticate: Basic realm=\"ibpulse\"\r\n"), std::string::npos)
        << none.headers;
    EXPECT_EQ(none.body.find("infiniband_"), std::string::npos);
    ++refused;
  }
  for (const std::string& creds :
       {std::string(kUser) + ":wrong", std::string("nobody:") + kPassword,
        std::string(kOtherUser) + ":" + kPassword, std::string(kUser) + ":scr4pe"}) {
    Curl wrong = curl(pki_, {"--cacert", ca, "-u", creds, url(d)});
    EXPECT_EQ(wrong.status, 401) << creds;
    EXPECT_EQ(wrong.body, "401 Unauthorized\n");
    ++refused;
  }
  for (const auto& [user, password] :
       {std::pair{kUser, kPassword}, std::pair{kOtherUser, kOtherPassword}}) {
    Curl ok =
        curl_published(pki_, {"--cacert", ca, "-u", std::string(user) + ":" + password, url(d)});
    EXPECT_EQ(ok.status, 200) << user;
    EXPECT_NE(ok.body.find(kPortMetric), std::string::npos);
  }
  Curl self = curl(
      pki_, {"--cacert", ca, "-u", std::string(kUser) + ":" + kPassword, url(d, "/metrics/self")});
  EXPECT_NE(self.body.find("ibpulse_http_unauthorized_total " + std::to_string(refused) + "\n"),
            std::string::npos)
      << self.body;
}

TEST_F(WebTls, BrotliAndGzipGetsGzipAndPlainHttpGetsNoMetrics) {
  Daemon d(fabric(), daemon_args(web_config("server", "", false)));
  ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
  EXPECT_EQ(curl_published(pki_, {"--cacert", path("ca.pem"), url(d)}).status, 200);
  Curl both = curl(pki_, {"--cacert", path("ca.pem"), "-H", "Accept-Encoding: br, gzip", url(d)});
  EXPECT_EQ(both.status, 200);
  EXPECT_NE(both.headers.find("Content-Encoding: gzip\r\n"), std::string::npos) << both.headers;
  ASSERT_GE(both.body.size(), 2u);
  EXPECT_EQ(both.body.substr(0, 2), "\x1f\x8b");  // a gzip member, not brotli
  Curl br = curl(pki_, {"--cacert", path("ca.pem"), "-H", "Accept-Encoding: br", url(d)});
  EXPECT_EQ(br.status, 200);
  EXPECT_EQ(br.headers.find("Content-Encoding"), std::string::npos) << br.headers;
  EXPECT_NE(br.body.find(kPortMetric), std::string::npos);

  Curl plain = curl(pki_, {url(d, "/metrics", "127.0.0.1", "http")});
  EXPECT_EQ(plain.status, 400);
  EXPECT_EQ(plain.body, "Client sent an HTTP request to an HTTPS server.\n");
  Curl self = curl(pki_, {"--cacert", path("ca.pem"), url(d, "/metrics/self")});
  EXPECT_NE(self.body.find("ibpulse_http_tls_handshake_failures_total 1\n"), std::string::npos)
      << self.body;
}

TEST_F(WebTls, RequireAndVerifyClientCertRefusesTheHandshakeWithoutOne) {
  const std::string config = web_config(
      "server", "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n",
      false);
  Daemon d(fabric(), daemon_args(config));
  ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
  const std::string ca = path("ca.pem");
  Curl without = curl(pki_, {"--cacert", ca, url(d)});
  EXPECT_NE(without.exit_code, 0);
  EXPECT_EQ(without.status, 0) << without.headers;
  EXPECT_TRUE(without.body.empty());
  Curl rogue =
      curl(pki_, {"--cacert", ca, "--cert", path("rogue.pem"), "--key", path("rogue.key"), url(d)});
  EXPECT_NE(rogue.exit_code, 0);
  EXPECT_EQ(rogue.status, 0);
  Curl with = curl_published(
      pki_, {"--cacert", ca, "--cert", path("client.pem"), "--key", path("client.key"), url(d)});
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(with.status, 200);
  EXPECT_NE(with.body.find(kPortMetric), std::string::npos);
  EXPECT_NE(with.body.find("ibpulse_http_tls_handshake_failures_total 2\n"), std::string::npos);
}

TEST_F(WebTls, SighupLoadsNewCertificatesAndABadFileKeepsTheRunningOnes) {
  Daemon d(fabric(), daemon_args(web_config("server", "", false)));
  ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
  EXPECT_EQ(curl(pki_, {"--cacert", path("ca.pem"), url(d)}).status, 200);

  web_config("server2", "", false);  // the same file, now a certificate from another CA
  d.signal(SIGHUP);
  ASSERT_TRUE(d.wait_for("event=reloaded", 10s)) << d.log();
  EXPECT_EQ(curl(pki_, {"--cacert", path("other-ca.pem"), url(d)}).status, 200);
  Curl old_ca = curl(pki_, {"--cacert", path("ca.pem"), url(d)});
  EXPECT_EQ(old_ca.exit_code, 60) << old_ca.err;  // CURLE_PEER_FAILED_VERIFICATION
  EXPECT_EQ(old_ca.status, 0);

  pki_.write("web.yml",
             "tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n"
             "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n");
  d.signal(SIGHUP);
  ASSERT_TRUE(d.wait_for("event=web_config_reload_failed", 10s)) << d.log();
  EXPECT_TRUE(d.wait_for("error=\"web config " + path("web.yml") +
                             ": tls_server_config.cipher_suites: not supported by ibpulse",
                         1s))
      << d.log();
  EXPECT_EQ(curl(pki_, {"--cacert", path("other-ca.pem"), url(d)}).status, 200);
}

TEST_F(WebTls, ABadWebConfigStopsTheStartNamingFileKeyAndWhy) {
  const auto start = [&](const std::string& yaml) {
    const std::string file = pki_.write("bad.yml", yaml);
    return fabric().exec({IBPULSE_BINARY_FOR_TESTS, "run", "--exit-after-sweeps", "1",
                          "--state.save-interval", "off", "--web.listen-address", "127.0.0.1:0",
                          "--web.config.file", file});
  };
  const std::string file = path("bad.yml");
  auto out = start(
      "tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n"
      "  client_auth: RequireAndVerifyClientCert\n");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("--web.config-file: web config " + file +
                         ": tls_server_config.client_auth: unknown key"),
            std::string::npos)
      << out.err;
  out = start("tls_server_config:\n  cert_file: server.pem\n  key_file: missing.key\n");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("web config " + file + ": tls_server_config.key_file: " +
                         path("missing.key") + ": No such file or directory"),
            std::string::npos)
      << out.err;
  out = start("tls_server_config:\n  cert_file: server.pem\n  key_file: client.key\n");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("tls_server_config.key_file: " + path("client.key") +
                         ": does not match the certificate"),
            std::string::npos)
      << out.err;
  out = start("basic_auth_users:\n  admin: plaintext\n");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.err.find("basic_auth_users.admin: not a bcrypt hash"), std::string::npos)
      << out.err;
}

TEST_F(WebTls, Ipv6ListenAddressesPlainAndTls) {
  {
    Daemon d(fabric(), {"--web.listen-address", "[::1]:0", "--state.save-interval", "off"});
    ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
    Curl v6 = curl_published(pki_, {url(d, "/metrics", "[::1]", "http")});
    EXPECT_EQ(v6.status, 200) << v6.err;
    EXPECT_NE(v6.body.find(kPortMetric), std::string::npos);
    EXPECT_NE(curl(pki_, {url(d, "/metrics", "127.0.0.1", "http")}).exit_code, 0);
  }
  {
    Daemon d(fabric(), daemon_args(web_config("server", "", false), "[::]:0"));
    ASSERT_TRUE(d.wait_for("event=ready", 20s)) << d.log();
    for (const std::string host : {"[::1]", "127.0.0.1"}) {  // dual-stack
      Curl c = curl_published(pki_, {"--cacert", path("ca.pem"), url(d, "/metrics", host)});
      EXPECT_EQ(c.status, 200) << host << c.err;
      EXPECT_NE(c.body.find(kPortMetric), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace ibpulse::testing
