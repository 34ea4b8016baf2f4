// remote-write.url items: plain URLs and maps, and the errors that stop the daemon at start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ibpulse/exporters/remote_write/options.h"

namespace ibpulse::exporters::remote_write {
namespace {

// A map or a URL as a flag gives it (YAML flow text, JSON alike).
ConfigNode flow(const std::string& text) {
  auto node = parse_config_text(text, "test");
  IBPULSE_CHECK(node.ok(), "test text {} parses", text);
  return *node;
}

std::string error_of(const std::string& text) {
  auto e = parse_endpoint(flow(text));
  return e ? "" : e.error();
}

TEST(RemoteWriteConfig, PlainUrl) {
  auto e = parse_endpoint(flow("http://127.0.0.1:8428/api/v1/write"));
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(e->url, "http://127.0.0.1:8428/api/v1/write");
  EXPECT_EQ(e->concurrency, 4u);
}

TEST(RemoteWriteConfig, MapWithEveryKind) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ibpulse-rw-config-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << "secret-token\n";
  auto e = parse_endpoint(flow(R"({"url": "https://mimir:9009/api/v1/push",
      "headers": {"X-Scope-OrgID": "fabric-a"}, "bearer-token-file": ")" +
                               (dir / "token").string() + R"(",
      "external-labels": {"cluster": "a"}, "batch-size": "500", "queue-samples": "1000",
      "queue-bytes": "1048576", "concurrency": "2", "timeout": "5s"})"));
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(e->headers.at("X-Scope-OrgID"), "fabric-a");
  EXPECT_EQ(e->bearer_token, "secret-token");  // the newline is not part of it
  EXPECT_EQ(e->external_labels.at(0), (std::pair<std::string, std::string>("cluster", "a")));
  EXPECT_EQ(e->batch_size, 500u);
  EXPECT_EQ(e->queue_samples, 1000u);
  EXPECT_EQ(e->queue_bytes, 1048576u);
  EXPECT_EQ(e->concurrency, 2u);
  EXPECT_EQ(e->timeout.count(), 5000);
}

TEST(RemoteWriteConfig, ErrorsNameTheProblem) {
  EXPECT_NE(error_of("ftp://host/x").find("is not http:// or https://"), std::string::npos);
  EXPECT_NE(error_of(R"({"url": "localhost:8428"})").find("not http"), std::string::npos);
  EXPECT_NE(error_of(R"({"url": "http://h/", "tenant": "x"})").find("unknown key 'tenant'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"url": "http://h/", "username": "u", "password-file": "/nonexistent/p"})")
                .find("password-file: cannot read '/nonexistent/p'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"url": "http://h/", "tls-ca-file": "/nonexistent/ca"})")
                .find("tls-ca-file: cannot read"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"url": "http://h/", "concurrency": "0"})").find("concurrency"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"headers": {}})").find("url is missing"), std::string::npos);
}

TEST(RemoteWriteConfig, CredentialsNeverReachLogs) {
  EXPECT_EQ(redacted_url("https://user:pw@host:9009/api/v1/push"), "https://host:9009/api/v1/push");
  EXPECT_EQ(redacted_url("http://host/a@b"), "http://host/a@b");
}

}  // namespace
}  // namespace ibpulse::exporters::remote_write
