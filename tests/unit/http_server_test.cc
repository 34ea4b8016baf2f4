// MetricsServer over real HTTP on 127.0.0.1:<free port>, with a raw socket client (each request
// on its own connection: the server closes after each response).

#include "ibpulse/exporters/prometheus/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ibpulse::exporters::prometheus {
namespace {

struct Response {
  int status = 0;                              // 0: no response (connection failed or closed early)
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked
  bool complete = false;  // a chunked body's final zero-size chunk arrived, or not chunked
  size_t chunks = 0;
};

// Decodes a Transfer-Encoding: chunked body strictly (no extensions, no trailers).
void dechunk(std::string_view raw, Response& response) {
  response.body.clear();
  for (;;) {
    size_t eol = raw.find("\r\n");
    if (eol == std::string_view::npos || eol == 0) return;
    size_t size = 0;
    for (char c : raw.substr(0, eol)) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return;
      size = size * 16 + static_cast<size_t>(std::isdigit(static_cast<unsigned char>(c))
                                                 ? c - '0'
                                                 : std::tolower(c) - 'a' + 10);
    }
    raw.remove_prefix(eol + 2);
    if (size == 0) {
      response.complete = raw == "\r\n";
      return;
    }
    if (raw.size() < size + 2 || raw.substr(size, 2) != "\r\n") return;
    response.body.append(raw.substr(0, size));
    ++response.chunks;
    raw.remove_prefix(size + 2);
  }
}

// Sends `request` as is and reads until the server closes the connection. `half_close` ends the
// request stream after sending (a client giving up mid-request).
Response roundtrip(uint16_t port, const std::string& request, bool half_close = false,
                   bool read_head_only = false) {
  Response response;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return response;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return response;
  }
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse a huge request before reading all of it
    sent += static_cast<size_t>(n);
  }
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string raw;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    raw.append(buffer, static_cast<size_t>(n));
    if (read_head_only && raw.find("\r\n\r\n") != std::string::npos) break;
  }
  ::close(fd);

  size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos || !raw.starts_with("HTTP/1.")) return response;
  response.status = std::stoi(raw.substr(9, 3));
  size_t line = raw.find("\r\n") + 2;
  while (line < head_end) {
    size_t eol = raw.find("\r\n", line);
    std::string header = raw.substr(line, eol - line);
    size_t colon = header.find(':');
    std::string name = header.substr(0, colon);
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t value = header.find_first_not_of(' ', colon + 1);
    response.headers[name] = value == std::string::npos ? "" : header.substr(value);
    line = eol + 2;
  }
  std::string_view body = std::string_view(raw).substr(head_end + 4);
  auto coding = response.headers.find("transfer-encoding");
  if (coding != response.headers.end() && coding->second == "chunked") {
    dechunk(body, response);
  } else {
    response.body = body;
    response.complete = true;
  }
  return response;
}

Response get(uint16_t port, const std::string& path, const std::string& extra_headers = "",
             const std::string& method = "GET", const std::string& version = "HTTP/1.1") {
  return roundtrip(port, method + " " + path + " " + version + "\r\nHost: 127.0.0.1\r\n" +
                             extra_headers + "Connection: close\r\n\r\n");
}

std::string gunzip(const std::string& in) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return "inflateInit2 failed";
  std::string out;
  char buffer[65536];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  stream.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  return rc == Z_STREAM_END ? out : "inflate failed";
}

// ~200 KB of exposition lines.
std::string known_body() {
  std::string body;
  for (int i = 0; i < 4000; ++i) {
    body += "infiniband_port_xmit_data_bytes_total{node_guid=\"0x0002c90300a1b2c3\",port=\"" +
            std::to_string(i) + "\"} " + std::to_string(1234567890123ULL * 3 + unsigned(i)) + "\n";
  }
  return body;
}

constexpr char kLanding[] = "<html><body><a href=\"/metrics\">Metrics</a></body></html>";

// One server for the suite, as a daemon has: requests see the statistics of the ones before.
class HttpServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    body_ = new std::string(known_body());
    HttpOptions options;
    options.listen_address = "127.0.0.1:0";
    auto server = MetricsServer::start(
        options,
        [](const MetricsServer::BodyWriter& write) {
          // In uneven pieces, some smaller than a chunk, some larger.
          std::string_view rest = *body_;
          for (size_t piece = 100; !rest.empty(); piece *= 3) {
            piece = std::min(piece, rest.size());
            write(rest.substr(0, piece));
            rest.remove_prefix(piece);
          }
        },
        [] { return std::string(kLanding); });
    ASSERT_TRUE(server.ok()) << server.error();
    server_ = std::move(server).value().release();
    ASSERT_NE(server_->port(), 0);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete body_;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    before_ = server_->stats();
  }

  static uint16_t port() { return server_->port(); }
  uint64_t new_scrapes() const { return server_->stats().scrapes - before_.scrapes; }
  uint64_t new_errors() const { return server_->stats().errors - before_.errors; }

  static std::string* body_;
  static MetricsServer* server_;
  MetricsServer::Stats before_;
  const std::string& body = *body_;
};

std::string* HttpServerTest::body_ = nullptr;
MetricsServer* HttpServerTest::server_ = nullptr;

TEST_F(HttpServerTest, MetricsPlainWithExactContentType) {
  Response r = get(port(), "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.headers.count("content-encoding"), 0u);
  EXPECT_EQ(r.headers["transfer-encoding"], "chunked");
  EXPECT_EQ(r.headers.count("content-length"), 0u);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.body, body);
  EXPECT_GE(body.size(), 200'000u);
  EXPECT_GE(r.chunks, 2u);  // streamed, not sent whole
  EXPECT_EQ(new_scrapes(), 1u);
  EXPECT_EQ(new_errors(), 0u);
  EXPECT_GT(server_->stats().last_scrape_seconds, 0.0);
}

TEST_F(HttpServerTest, MetricsGzipWhenAsked) {
  Response r = get(port(), "/metrics", "Accept-Encoding: gzip\r\n");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-encoding"], "gzip");
  EXPECT_EQ(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_TRUE(r.complete);
  EXPECT_LT(r.body.size(), body.size() / 4);
  EXPECT_EQ(gunzip(r.body), body);

  // What Prometheus sends; and q=0 refuses gzip.
  r = get(port(), "/metrics", "Accept-Encoding: identity;q=0.5, GZIP;q=1\r\n");
  EXPECT_EQ(r.headers["content-encoding"], "gzip");
  EXPECT_EQ(gunzip(r.body), body);
  r = get(port(), "/metrics", "Accept-Encoding: deflate, gzip;q=0\r\n");
  EXPECT_EQ(r.headers.count("content-encoding"), 0u);
  EXPECT_EQ(r.body, body);

  // Brotli is never ours to spend CPU on (some servers compress at quality 11 when a client
  // offers it): "br, gzip" gets the very bytes a gzip request gets, the same compressor at the
  // same level over the same text, so the same work; "br" alone gets identity.
  const std::string gzip_bytes = get(port(), "/metrics", "Accept-Encoding: gzip\r\n").body;
  r = get(port(), "/metrics", "Accept-Encoding: br, gzip\r\n");
  EXPECT_EQ(r.headers["content-encoding"], "gzip");
  EXPECT_TRUE(r.body == gzip_bytes) << r.body.size() << " bytes against " << gzip_bytes.size();
  r = get(port(), "/metrics", "Accept-Encoding: br\r\n");
  EXPECT_EQ(r.headers.count("content-encoding"), 0u);
  EXPECT_EQ(r.body, body);
}

TEST_F(HttpServerTest, LandingPageAndQueryString) {
  Response r = get(port(), "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_EQ(r.body, kLanding);
  EXPECT_EQ(get(port(), "/metrics?x=1").body, body);
}

// An HTTP/1.0 client cannot read chunks: its body ends where the connection does.
TEST_F(HttpServerTest, Http10ClientsGetAPlainBody) {
  Response r = get(port(), "/metrics", "", "GET", "HTTP/1.0");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.count("transfer-encoding"), 0u);
  EXPECT_EQ(r.body, body);
}

TEST_F(HttpServerTest, HeadSendsHeadersOnly) {
  Response r = get(port(), "/metrics", "", "HEAD");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_TRUE(r.body.empty());
  r = get(port(), "/", "", "HEAD");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body.empty());
}

TEST_F(HttpServerTest, UnknownPathAndOtherMethods) {
  EXPECT_EQ(get(port(), "/nope").status, 404);
  EXPECT_EQ(get(port(), "/metrics/").status, 404);
  EXPECT_EQ(get(port(), "/metricsx").status, 404);
  EXPECT_EQ(get(port(), "/metrics/self").status, 404);  // this server has no self-metrics
  Response r = roundtrip(port(),
                         "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                         "Connection: close\r\n\r\nabc");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.headers["allow"], "GET, HEAD");
  EXPECT_EQ(get(port(), "/", "", "PUT").status, 405);
  EXPECT_EQ(get(port(), "/metrics", "", "DELETE").status, 405);
  EXPECT_EQ(new_scrapes(), 0u);
}

TEST_F(HttpServerTest, HugeHeadersGetA4xxAndTheServerLives) {
  std::string huge = "X-Huge: " + std::string(size_t{64} * 1024, 'a') + "\r\n";
  Response r = get(port(), "/metrics", huge);
  EXPECT_EQ(r.status, 431);
  std::string many;
  for (int i = 0; i < 2000; ++i)
    many += "X-H" + std::to_string(i) + ": v\r\n";
  r = get(port(), "/metrics", many);
  EXPECT_EQ(r.status, 431);
  // Garbage and a connection closed mid-request do not hurt either.
  roundtrip(port(), "\x01\x02 garbage\r\n\r\n");
  roundtrip(port(), "GET /metr", /*half_close=*/true);
  EXPECT_EQ(get(port(), "/metrics").body, body);
}

TEST_F(HttpServerTest, ConcurrentScrapesAllGetTheFullBody) {
  constexpr int kThreads = 4;
  constexpr int kEach = 5;
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        bool gzip = (t + i) % 2 == 0;
        Response r = get(port(), "/metrics", gzip ? "Accept-Encoding: gzip\r\n" : "");
        if (r.status == 200 && (gzip ? gunzip(r.body) : r.body) == body) ++good;
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(good.load(), kThreads * kEach);
  EXPECT_EQ(new_scrapes(), static_cast<uint64_t>(kThreads * kEach));
  EXPECT_EQ(new_errors(), 0u);
}

TEST_F(HttpServerTest, SecondServerOnTheSamePortFailsNamingTheAddress) {
  HttpOptions options;
  options.listen_address = "127.0.0.1:" + std::to_string(port());
  auto second = MetricsServer::start(
      options, [](const MetricsServer::BodyWriter&) {}, [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error(), "cannot listen on " + options.listen_address + ": address in use");
  EXPECT_EQ(get(port(), "/metrics").body, body);  // the first one is unaffected
}

TEST(HttpServer, BadOptionsAreClearErrors) {
  auto nothing = [](const MetricsServer::BodyWriter&) {};
  auto landing = [] { return std::string(); };
  HttpOptions options;
  options.listen_address = "127.0.0.1";
  auto r = MetricsServer::start(options, nothing, landing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "bad listen address '127.0.0.1': want [host]:port, e.g. :9731 or [::1]:9731");
  options.listen_address = "::1:9731";
  r = MetricsServer::start(options, nothing, landing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "bad listen address '::1:9731': an IPv6 address goes in brackets, [::1]:9731");
  options.listen_address = ":70000";
  r = MetricsServer::start(options, nothing, landing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "bad listen address ':70000': port must be 0 to 65535");
  options.listen_address = "127.0.0.1:0";
  options.threads = 0;
  r = MetricsServer::start(options, nothing, landing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "cannot listen on 127.0.0.1:0: threads must be at least 1");
}

// A web config file that is missing stops the start, naming the file.
TEST(HttpServer, AMissingWebConfigIsAClearError) {
  HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  options.web_config_file = "/nonexistent/ibpulse-web.yml";
  auto r = MetricsServer::start(
      options, [](const MetricsServer::BodyWriter&) {}, [] { return std::string(); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "web config /nonexistent/ibpulse-web.yml: cannot read it");
}

TEST(HttpServer, AThrowingMetricsFnIsA500AndCounted) {
  HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  auto server = MetricsServer::start(
      options, [](const MetricsServer::BodyWriter&) { throw std::runtime_error("boom"); },
      [] { return std::string("x"); });
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_EQ(get((*server)->port(), "/metrics").status, 500);
  EXPECT_EQ(get((*server)->port(), "/").status, 200);
  EXPECT_EQ((*server)->stats().errors, 1u);
  EXPECT_EQ((*server)->stats().scrapes, 0u);
}

TEST(HttpServer, SelfMetricsHaveTheirOwnPathAndAreNotCountedAsScrapes) {
  HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  auto server = MetricsServer::start(
      options, [](const MetricsServer::BodyWriter& write) { write("fabric_series 1\n"); },
      [] { return std::string("x"); },
      [](const MetricsServer::BodyWriter& write) { write("ibpulse_up 1\n"); });
  ASSERT_TRUE(server.ok()) << server.error();
  Response r = get((*server)->port(), "/metrics/self");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.body, "ibpulse_up 1\n");
  r = get((*server)->port(), "/metrics/self", "Accept-Encoding: gzip\r\n");
  EXPECT_EQ(r.headers["content-encoding"], "gzip");
  EXPECT_EQ(gunzip(r.body), "ibpulse_up 1\n");
  EXPECT_EQ((*server)->stats().scrapes, 0u);  // the stats describe /metrics
  EXPECT_EQ(get((*server)->port(), "/metrics").body, "fabric_series 1\n");
  EXPECT_EQ((*server)->stats().scrapes, 1u);
}

// Failing after the head went out: no 500 is possible any more, so the body stops without its
// final chunk and the scraper sees a broken response, never a short one that parses.
TEST(HttpServer, AFailureMidBodyLeavesTheChunkedBodyUnfinished) {
  HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  const std::string first(200'000, 'x');
  auto server = MetricsServer::start(
      options,
      [&first](const MetricsServer::BodyWriter& write) {
        write(first);
        throw std::runtime_error("boom");
      },
      [] { return std::string("x"); });
  ASSERT_TRUE(server.ok()) << server.error();
  Response r = get((*server)->port(), "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.body, first);
  EXPECT_EQ((*server)->stats().errors, 1u);
  EXPECT_EQ((*server)->stats().scrapes, 0u);
}

// A scraper that gives up stops the rendering: write() throws instead of rendering on into a
// closed connection.
TEST(HttpServer, AClientThatGoesAwayStopsTheRendering) {
  HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  constexpr int kPieces = 400;  // 400 MB if nothing stopped it
  std::atomic<int> written{0};
  std::atomic<bool> stopped{false};
  const std::string piece(1 << 20, 'x');
  auto server = MetricsServer::start(
      options,
      [&](const MetricsServer::BodyWriter& write) {
        try {
          for (int i = 0; i < kPieces; ++i) {
            write(piece);
            ++written;
          }
        } catch (...) {
          stopped = true;
          throw;
        }
      },
      [] { return std::string("x"); });
  ASSERT_TRUE(server.ok()) << server.error();
  Response r = roundtrip((*server)->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                         /*half_close=*/false, /*read_head_only=*/true);
  EXPECT_EQ(r.status, 200);
  for (int i = 0; i < 100 && (*server)->stats().errors == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(stopped.load());
  EXPECT_LT(written.load(), kPieces);
  EXPECT_EQ((*server)->stats().errors, 1u);
  EXPECT_EQ((*server)->stats().scrapes, 0u);
}

}  // namespace
}  // namespace ibpulse::exporters::prometheus
