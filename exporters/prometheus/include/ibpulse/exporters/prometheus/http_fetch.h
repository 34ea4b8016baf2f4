#pragma once
// A small blocking HTTP/1.1 GET, the client side of the endpoint (`ibpulse top` reads
// /api/health with it): plain http:// only (an endpoint with TLS or basic auth is not reachable
// with it yet; the TLS context beside the server is where that would come from), a body with
// Content-Length, chunked or ended by the connection's close, at most 64 MiB, within a
// timeout.
//
// Thread safety: pure functions (one socket per call).

#include <chrono>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus {

struct HttpUrl {
  std::string host;  // a name, an IPv4 address, or an IPv6 address without brackets
  std::string port = "80";
  std::string path = "/";
};

// "http://HOST[:PORT][/PATH]"; errors say what is wrong.
Result<HttpUrl> parse_http_url(const std::string& url);

// The body of a 200 answer; other statuses, refusals and timeouts are errors.
Result<std::string> http_get_body(const HttpUrl& url, std::chrono::milliseconds timeout);

}  // namespace ibpulse::exporters::prometheus
