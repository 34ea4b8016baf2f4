#pragma once
// The head of an HTTP/1.x request as the metrics server reads it: request line and header
// fields, parsed from bytes a client sent (outside input: fuzzed by the http_request_head fuzz
// target). Private to the exporter.
//
// Only what the server uses is kept: method, path and query (the target split at '?'), version
// and the header fields; values are views into the bytes given, which must outlive the head.
//
// Thread safety: pure functions of their arguments.

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus::detail {

struct RequestHead {
  std::string_view method;
  std::string_view path;     // the request target up to '?'
  std::string_view query;    // what follows the '?', still percent-encoded; empty: none
  std::string_view version;  // "HTTP/1.1" or "HTTP/1.0"
  std::vector<std::pair<std::string_view, std::string_view>> fields;

  // The value of the first field of that name (names compare case-insensitively), trimmed.
  std::optional<std::string_view> field(std::string_view name) const;
};

// Where the head ends in `bytes` (the index after the blank line), or nothing when the blank
// line has not arrived yet. Takes "\r\n\r\n" and, as RFC 9112 allows, bare "\n\n".
std::optional<size_t> head_end(std::string_view bytes);

// `head`: the bytes up to head_end(). Errors are short reasons for a 400 response.
Result<RequestHead> parse_request_head(std::string_view head);

}  // namespace ibpulse::exporters::prometheus::detail
