#include "http_responder.h"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <iterator>
#include <optional>

#include "gzip.h"
#include "http_request.h"
#include "streamed_response.h"

namespace ibpulse::exporters::prometheus::detail {
namespace {

using namespace std::string_view_literals;

constexpr std::string_view kMetricsHeaders =
    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nVary: Accept-Encoding\r\n";
constexpr std::string_view kMetricsGzipHeaders =
    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nVary: Accept-Encoding\r\n"
    "Content-Encoding: gzip\r\n";
constexpr std::string_view kUnauthorizedHeaders = "WWW-Authenticate: Basic realm=\"ibpulse\"\r\n";

// Writes a whole response; false when the client went away.
bool respond(Connection& connection, int status, std::string_view reason, std::string_view headers,
             std::string_view body, bool head) {
  thread_local std::string response;
  response.clear();
  fmt::format_to(std::back_inserter(response),
                 "HTTP/1.1 {} {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n", status,
                 reason, body.size(), headers);
  if (!head) response.append(body);
  return connection.write(response);
}

void error_response(Connection& connection, int status, std::string_view reason,
                    std::string_view extra_headers, bool head) {
  const std::string headers =
      fmt::format("Content-Type: text/plain; charset=utf-8\r\n{}", extra_headers);
  respond(connection, status, reason, headers, fmt::format("{} {}\n", status, reason), head);
}

}  // namespace

void Responder::serve(Connection& connection, const ServingConfig& config) {
  if (config.tls) {
    if (!connection.start_tls(config.tls.get()).ok()) {
      tls_failures_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  Result<std::string> bytes = connection.read_head();
  if (!bytes.ok()) {
    if (bytes.error() == "too large") {
      bad_requests_.fetch_add(1, std::memory_order_relaxed);
      error_response(connection, 431, "Request Header Fields Too Large", "", false);
    }
    return;  // closed or timed out: nobody to answer
  }
  respond_to_head(connection, *bytes, *config.auth);
}

void Responder::respond_to_head(Connection& connection, std::string_view bytes, BasicAuth& auth) {
  Result<RequestHead> request = parse_request_head(bytes);
  if (!request.ok()) {
    bad_requests_.fetch_add(1, std::memory_order_relaxed);
    error_response(connection, 400, "Bad Request", "", false);
    return;
  }
  const bool head = request->method == "HEAD";
  // Every path is protected, the landing page and unknown paths too.
  if (auth.required() && !auth.allows(request->field("Authorization").value_or(""))) {
    unauthorized_.fetch_add(1, std::memory_order_relaxed);
    error_response(connection, 401, "Unauthorized", kUnauthorizedHeaders, head);
    return;
  }
  if (!head && request->method != "GET") {
    error_response(connection, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n", false);
    return;
  }
  if (request->path == "/metrics") return serve_metrics(connection, *request, metrics_, true);
  if (request->path == "/metrics/self" && self_metrics_) {
    return serve_metrics(connection, *request, self_metrics_, false);
  }
  if (request->path == "/") {
    return serve_page(connection, head, "text/html; charset=utf-8", landing_);
  }
  for (const auto& document : documents_) {
    if (request->path == document.path) {
      const std::string_view query = request->query;
      return serve_page(connection, head, document.content_type,
                        [&document, query] { return document.body(query); });
    }
  }
  error_response(connection, 404, "Not Found", "", head);
}

void Responder::serve_metrics(Connection& connection, const RequestHead& request,
                              const MetricsServer::MetricsFn& body, bool counted) {
  const auto begin = std::chrono::steady_clock::now();
  const bool head = request.method == "HEAD";
  const std::optional<std::string_view> accept = request.field("Accept-Encoding");
  const bool gzip = accept.has_value() && accepts_gzip(*accept);
  std::optional<GzipStream> compressor;
  if (gzip && !head) {
    auto stream = GzipStream::begin();
    if (!stream.ok()) return failed_scrape(connection, false);
    compressor = std::move(stream).value();
  }
  StreamedResponse response(connection, gzip ? kMetricsGzipHeaders : kMetricsHeaders,
                            request.version != "HTTP/1.0", std::move(compressor));
  try {
    if (head) {
      response.send_head();
    } else {
      body([&response](std::string_view piece) { response.write(piece); });
      response.finish();
    }
  } catch (const std::exception&) {
    return failed_scrape(connection, response.head_sent());
  }
  if (!counted) return;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
  last_scrape_seconds_.store(took.count(), std::memory_order_relaxed);
  scrapes_.fetch_add(1, std::memory_order_relaxed);
}

// A 500 when nothing was sent yet; otherwise the connection closes without the body's end.
void Responder::failed_scrape(Connection& connection, bool head_sent) {
  errors_.fetch_add(1, std::memory_order_relaxed);
  if (!head_sent) error_response(connection, 500, "Internal Server Error", "", false);
}

void Responder::serve_page(Connection& connection, bool head, const std::string& content_type,
                           const std::function<std::string()>& body) {
  std::string text;
  try {
    text = body();
  } catch (const std::exception&) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    error_response(connection, 500, "Internal Server Error", "", head);
    return;
  }
  if (!respond(connection, 200, "OK", "Content-Type: " + content_type + "\r\n", text, head)) {
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
}

MetricsServer::Stats Responder::stats() const {
  MetricsServer::Stats s;
  s.scrapes = scrapes_.load(std::memory_order_relaxed);
  s.errors = errors_.load(std::memory_order_relaxed);
  s.last_scrape_seconds = last_scrape_seconds_.load(std::memory_order_relaxed);
  s.unauthorized = unauthorized_.load(std::memory_order_relaxed);
  s.tls_failures = tls_failures_.load(std::memory_order_relaxed);
  s.bad_requests = bad_requests_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace ibpulse::exporters::prometheus::detail
