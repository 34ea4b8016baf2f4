// The pieces of the metrics server that read outside input: the request head parser, the web
// config file (exporter-toolkit format) and basic auth against bcrypt hashes with its cache.
// TLS and real clients: tests/integration/web_tls_test.cc.
#include "web_config.h"

#include <crypt.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <array>

#include "basic_auth.h"
#include "http_request.h"

namespace ibpulse::exporters::prometheus::detail {
namespace {

std::string bcrypt(const std::string& password, const std::string& prefix = "$2b$") {
  std::array<char, CRYPT_GENSALT_OUTPUT_SIZE> salt{};
  EXPECT_NE(crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt.data(), salt.size()), nullptr);
  crypt_data data{};
  const std::string hash = crypt_r(password.c_str(), salt.data(), &data);
  return prefix + hash.substr(4);
}

std::string basic(const std::string& user_and_password) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  const std::string& in = user_and_password;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t bits = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) bits |= uint32_t(uint8_t(in[i + 1])) << 8;
    if (i + 2 < in.size()) bits |= uint8_t(in[i + 2]);
    out += kAlphabet[(bits >> 18) & 63];
    out += kAlphabet[(bits >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(bits >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[bits & 63] : '=';
  }
  return "Basic " + out;
}

TEST(RequestHead, ParsesLineFieldsAndPath) {
  const std::string bytes =
      "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\naccept-encoding:  br, gzip \r\n\r\n";
  ASSERT_EQ(head_end(bytes), bytes.size());
  auto head = parse_request_head(bytes);
  ASSERT_TRUE(head.ok()) << head.error();
  EXPECT_EQ(head->method, "GET");
  EXPECT_EQ(head->path, "/metrics");
  EXPECT_EQ(head->version, "HTTP/1.1");
  EXPECT_EQ(head->field("Accept-Encoding"), "br, gzip");
  EXPECT_EQ(head->field("HOST"), "a");
  EXPECT_FALSE(head->field("Authorization").has_value());
  EXPECT_EQ(head_end("GET / HTTP/1.0\n\nrest"), 16u);
  EXPECT_FALSE(head_end("GET / HTTP/1.1\r\nHost: a\r\n").has_value());
}

TEST(RequestHead, RefusesMalformedHeads) {
  for (const std::string bad :
       {"GET /metrics\r\n\r\n", "GET /metrics HTTP/2\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
        "GET  /metrics HTTP/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n", "GET / HTTP/1.1\r\n folded: x\r\n\r\n"}) {
    EXPECT_FALSE(parse_request_head(bad).ok()) << bad;
  }
}

TEST(WebConfig, ReadsTheExporterToolkitFormat) {
  const std::string hash = bcrypt("pw", "$2y$");
  auto config = parse_web_config(
      "tls_server_config:\n  cert_file: tls/server.crt\n  key_file: /abs/server.key\n"
      "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n"
      "  min_version: TLS13\nbasic_auth_users:\n  zed: " +
          hash + "\n  alice: " + hash + "\n",
      "/etc/ibpulse");
  ASSERT_TRUE(config.ok()) << config.error();
  EXPECT_TRUE(config->tls);
  EXPECT_EQ(config->tls_config.cert_file, "/etc/ibpulse/tls/server.crt");
  EXPECT_EQ(config->tls_config.key_file, "/abs/server.key");
  EXPECT_EQ(config->tls_config.client_ca_file, "/etc/ibpulse/ca.crt");
  EXPECT_EQ(config->tls_config.client_auth, ClientAuth::kRequireAndVerify);
  EXPECT_EQ(config->tls_config.min_version, TLS1_3_VERSION);
  ASSERT_EQ(config->users.size(), 2u);
  EXPECT_EQ(config->users[0].first, "alice");

  auto plain = parse_web_config("", "/x");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->tls);
  EXPECT_TRUE(plain->users.empty());
  auto defaults = parse_web_config("tls_server_config:\n  cert_file: c\n  key_file: k\n", "");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->tls_config.min_version, TLS1_2_VERSION);  // the toolkit's default
  EXPECT_EQ(defaults->tls_config.client_auth, ClientAuth::kNone);
}

TEST(WebConfig, ErrorsNameTheKeyAndWhy) {
  const auto error = [](const std::string& yaml) {
    auto r = parse_web_config(yaml, "/d");
    return r.ok() ? std::string("ok") : r.error();
  };
  const std::string tls = "tls_server_config:\n  cert_file: c\n  key_file: k\n";
  EXPECT_EQ(error("tls_server_config:\n  cert_fle: c\n"),
            "tls_server_config.cert_fle: unknown key");
  EXPECT_EQ(error(tls + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"),
            "tls_server_config.cipher_suites: not supported by ibpulse (remove it, or put a proxy "
            "in front)");
  EXPECT_EQ(error("http_server_config:\n  http2: false\n"),
            "http_server_config: not supported by ibpulse (remove it, or put a proxy in front)");
  EXPECT_EQ(error("basic_auth:\n  a: b\n"), "basic_auth: unknown key");
  EXPECT_EQ(error("tls_server_config:\n  key_file: k\n"), "tls_server_config.cert_file: missing");
  EXPECT_EQ(error(tls + "  client_auth_type: RequireClientCert\n"),
            "tls_server_config.client_auth_type: 'RequireClientCert' is not one of NoClientCert, "
            "RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, "
            "RequireAndVerifyClientCert");
  EXPECT_EQ(error(tls + "  client_auth_type: VerifyClientCertIfGiven\n"),
            "tls_server_config.client_ca_file: missing (the client_auth_type verifies)");
  EXPECT_EQ(error(tls + "  min_version: TLS1.2\n"),
            "tls_server_config.min_version: 'TLS1.2' is not one of TLS10, TLS11, TLS12, TLS13");
  EXPECT_EQ(error(tls + "  min_version: TLS13\n  max_version: TLS12\n"),
            "tls_server_config.max_version: below min_version");
  EXPECT_EQ(error("basic_auth_users:\n  admin: secret\n"),
            "basic_auth_users.admin: not a bcrypt hash ($2a$, $2b$ or $2y$)");
  EXPECT_EQ(error("basic_auth_users:\n  admin: $1$abc$def\n"),
            "basic_auth_users.admin: not a bcrypt hash ($2a$, $2b$ or $2y$)");
  EXPECT_EQ(error("[1, 2]\n"), "want a map with tls_server_config and basic_auth_users");
  EXPECT_EQ(error("tls_server_config: [\n").substr(0, 8), "not YAML");
}

TEST(WebConfig, AFileThatCannotBeReadIsAnError) {
  auto r = load_web_config("/nonexistent/web.yml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "web config /nonexistent/web.yml: cannot read it");
  r = load_web_config("/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "web config /: cannot read it");
}

TEST(BasicAuth, ChecksEveryHashKindAndCachesOnlySuccesses) {
  BasicAuth auth(
      {{"a", bcrypt("pa", "$2a$")}, {"b", bcrypt("p:b", "$2b$")}, {"y", bcrypt("py", "$2y$")}});
  ASSERT_TRUE(auth.required());
  EXPECT_TRUE(auth.allows(basic("a:pa")));
  EXPECT_TRUE(auth.allows(basic("b:p:b")));  // the password is everything after the first ':'
  EXPECT_TRUE(auth.allows(basic("y:py")));
  EXPECT_EQ(auth.bcrypt_runs(), 3u);
  EXPECT_TRUE(auth.allows(basic("a:pa")));  // cached
  EXPECT_TRUE(auth.allows("basic " + basic("y:py").substr(6)));
  EXPECT_EQ(auth.bcrypt_runs(), 3u);

  EXPECT_FALSE(auth.allows(basic("a:wrong")));
  EXPECT_FALSE(auth.allows(basic("a:wrong")));  // failures are not cached
  EXPECT_EQ(auth.bcrypt_runs(), 5u);
  EXPECT_FALSE(auth.allows(basic("nobody:pa")));  // an unknown user costs a bcrypt too
  EXPECT_EQ(auth.bcrypt_runs(), 6u);
  EXPECT_FALSE(auth.allows(basic("a:pa").substr(0, 9)));  // truncated base64
  EXPECT_FALSE(auth.allows("Bearer abc"));
  EXPECT_FALSE(auth.allows(""));
  EXPECT_FALSE(auth.allows(basic("apa")));  // no colon
  EXPECT_EQ(auth.bcrypt_runs(), 6u);

  BasicAuth open({});
  EXPECT_FALSE(open.required());
  EXPECT_TRUE(open.allows(""));
}

TEST(BasicAuth, DecodesPaddedBase64Only) {
  std::string out;
  EXPECT_TRUE(BasicAuth::decode_base64("YTpi", out));
  EXPECT_EQ(out, "a:b");
  EXPECT_TRUE(BasicAuth::decode_base64("YQ==", out));
  EXPECT_EQ(out, "a");
  EXPECT_TRUE(BasicAuth::decode_base64("YWI=", out));
  EXPECT_EQ(out, "ab");
  EXPECT_TRUE(BasicAuth::decode_base64("", out));
  EXPECT_EQ(out, "");
  for (const std::string bad : {"YQ", "Y===", "YQ=a", "=QAA", "YQ==YTpi", "YT!i"}) {
    EXPECT_FALSE(BasicAuth::decode_base64(bad, out)) << bad;
  }
}

}  // namespace
}  // namespace ibpulse::exporters::prometheus::detail
