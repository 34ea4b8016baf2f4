#include "ibpulse/exporters/prometheus/http_server.h"

#include <civetweb.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "gzip.h"
#include "listen_spec.h"
#include "streamed_response.h"

namespace ibpulse::exporters::prometheus {
namespace {

using namespace std::string_view_literals;

constexpr std::string_view kMetricsHeaders =
    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nVary: Accept-Encoding\r\n";
constexpr std::string_view kMetricsGzipHeaders =
    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nVary: Accept-Encoding\r\n"
    "Content-Encoding: gzip\r\n";

}  // namespace

struct MetricsServer::Impl {
  MetricsFn metrics;
  MetricsFn self_metrics;
  LandingFn landing;
  mg_context* context = nullptr;
  uint16_t port = 0;
  std::atomic<uint64_t> scrapes{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<double> last_scrape_seconds{0};
  // civetweb reports why start failed ("cannot bind to ...: 98 (Address already in use)") only
  // through log_message; mg_start2's error text just says "Failed to setup server ports".
  std::atomic<bool> started{false};
  std::string start_log;

  ~Impl() {
    if (context != nullptr) mg_stop(context);  // joins the workers before members go
  }

  // Writes head (and body unless HEAD); false when the client went away.
  static bool respond(mg_connection* conn, int status, std::string_view reason,
                      std::string_view headers, std::string_view body, bool head) {
    thread_local std::string response_head;
    response_head.clear();
    fmt::format_to(std::back_inserter(response_head),
                   "HTTP/1.1 {} {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n", status,
                   reason, body.size(), headers);
    if (mg_write(conn, response_head.data(), response_head.size()) !=
        static_cast<int>(response_head.size())) {
      return false;
    }
    if (head || body.empty()) return true;
    return mg_write(conn, body.data(), body.size()) == static_cast<int>(body.size());
  }

  static int error_response(mg_connection* conn, int status, std::string_view reason,
                            std::string_view extra_headers, bool head) {
    std::string headers =
        fmt::format("Content-Type: text/plain; charset=utf-8\r\n{}", extra_headers);
    std::string body = fmt::format("{} {}\n", status, reason);
    respond(conn, status, reason, headers, body, head);
    return status;
  }

  int serve_metrics(mg_connection* conn, bool head, const MetricsFn& body, bool counted) {
    auto begin = std::chrono::steady_clock::now();
    const char* accept = mg_get_header(conn, "Accept-Encoding");
    const bool gzip = accept != nullptr && accepts_gzip(accept);
    std::optional<GzipStream> compressor;
    if (gzip && !head) {
      auto stream = GzipStream::begin();
      if (!stream.ok()) return failed_scrape(conn, nullptr);
      compressor = std::move(stream).value();
    }
    const mg_request_info* request = mg_get_request_info(conn);
    const bool http10 = request->http_version != nullptr && request->http_version == "1.0"sv;
    StreamedResponse response(conn, gzip ? kMetricsGzipHeaders : kMetricsHeaders, !http10,
                              std::move(compressor));
    try {
      if (head) {
        response.send_head();
      } else {
        body([&response](std::string_view piece) { response.write(piece); });
        response.finish();
      }
    } catch (const std::exception&) {
      return failed_scrape(conn, &response);
    }
    if (!counted) return 200;
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
    last_scrape_seconds.store(took.count(), std::memory_order_relaxed);
    scrapes.fetch_add(1, std::memory_order_relaxed);
    return 200;
  }

  // A 500 when nothing was sent yet; otherwise the connection closes without the body's end.
  int failed_scrape(mg_connection* conn, const StreamedResponse* response) {
    errors.fetch_add(1, std::memory_order_relaxed);
    if (response != nullptr && response->head_sent()) return 200;
    return error_response(conn, 500, "Internal Server Error", "", false);
  }

  int serve_landing(mg_connection* conn, bool head) {
    std::string html;
    try {
      html = landing();
    } catch (const std::exception&) {
      errors.fetch_add(1, std::memory_order_relaxed);
      return error_response(conn, 500, "Internal Server Error", "", head);
    }
    if (!respond(conn, 200, "OK", "Content-Type: text/html; charset=utf-8\r\n", html, head)) {
      errors.fetch_add(1, std::memory_order_relaxed);
    }
    return 200;
  }

  // The one civetweb handler (registered on "/", which civetweb matches as a prefix of every
  // path): dispatch on method and exact path. Returns the status so civetweb treats it as done.
  static int handle(mg_connection* conn, void* data) {
    auto* self = static_cast<Impl*>(data);
    const mg_request_info* request = mg_get_request_info(conn);
    std::string_view method = request->request_method != nullptr ? request->request_method : "";
    std::string_view path = request->local_uri != nullptr ? request->local_uri : "";
    bool head = method == "HEAD";
    if (!head && method != "GET") {
      return error_response(conn, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n", false);
    }
    if (path == "/metrics") return self->serve_metrics(conn, head, self->metrics, true);
    if (path == "/metrics/self" && self->self_metrics)
      return self->serve_metrics(conn, head, self->self_metrics, false);
    if (path == "/") return self->serve_landing(conn, head);
    return error_response(conn, 404, "Not Found", "", head);
  }
};

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const HttpOptions& options,
                                                            MetricsFn metrics, LandingFn landing,
                                                            MetricsFn self_metrics) {
  static std::once_flag library_once;
  std::call_once(library_once, [] { mg_init_library(0); });

  if (options.threads == 0)
    return Err("cannot listen on {}: threads must be at least 1", options.listen_address);
  Result<std::string> spec = detail::civetweb_listen_spec(options);
  if (!spec.ok()) return Error{spec.error()};

  auto impl = std::make_unique<Impl>();
  impl->metrics = std::move(metrics);
  impl->landing = std::move(landing);
  impl->self_metrics = std::move(self_metrics);

  std::string threads = std::to_string(options.threads);
  std::vector<const char*> config = {
      "listening_ports", spec->c_str(), "num_threads", threads.c_str(),
      // Larger request heads get civetweb's 4xx; the connection is closed, the server stays.
      // A client that stalls holds a worker for at most request_timeout_ms.
      "max_request_size", "16384", "request_timeout_ms", "10000", "enable_keep_alive", "no",
      "enable_directory_listing", "no"};
  if (!options.tls_certificate.empty()) {
    config.push_back("ssl_certificate");
    config.push_back(options.tls_certificate.c_str());
  }
  config.push_back(nullptr);

  mg_callbacks callbacks{};
  // civetweb's own messages are kept while starting, and not logged per request after.
  callbacks.log_message = [](const mg_connection* conn, const char* message) {
    auto* self =
        conn != nullptr ? static_cast<Impl*>(mg_get_user_data(mg_get_context(conn))) : nullptr;
    // The first message is the cause; a summary follows.
    if (self != nullptr && !self->started.load() && message != nullptr && self->start_log.empty()) {
      self->start_log = message;
    }
    return 1;
  };
  mg_init_data init{&callbacks, impl.get(), config.data()};
  std::array<char, 256> error_text{};
  unsigned error_code = 0;
  mg_error_data error{&error_code, error_text.data(), error_text.size()};
  impl->context = mg_start2(&init, &error);
  if (impl->context == nullptr) {
    std::string_view reason = error_text.data();
    if (!impl->start_log.empty()) reason = impl->start_log;
    return detail::civetweb_start_error(options, reason);
  }
  impl->started.store(true);
  mg_set_request_handler(impl->context, "/", &Impl::handle, impl.get());

  std::array<mg_server_port, 4> ports{};
  if (mg_get_server_ports(impl->context, static_cast<int>(ports.size()), ports.data()) < 1) {
    return Err("cannot listen on {}: no bound port", options.listen_address);
  }
  impl->port = static_cast<uint16_t>(ports[0].port);
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl)));
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetricsServer::~MetricsServer() = default;

uint16_t MetricsServer::port() const {
  return impl_->port;
}

MetricsServer::Stats MetricsServer::stats() const {
  return Stats{impl_->scrapes.load(std::memory_order_relaxed),
               impl_->errors.load(std::memory_order_relaxed),
               impl_->last_scrape_seconds.load(std::memory_order_relaxed)};
}

}  // namespace ibpulse::exporters::prometheus
