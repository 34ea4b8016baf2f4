#include "http_request.h"

#include <algorithm>

#include "http_text.h"

namespace ibpulse::exporters::prometheus::detail {
namespace {

// RFC 9110 token characters: what a method and a field name may hold.
bool is_token(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 32 || u >= 127) return false;
    return std::string_view("\"(),/:;<=>?@[\\]{}").find(c) == std::string_view::npos;
  });
}

// The next line of `rest` without its "\r\n" or "\n"; `rest` moves past it.
std::string_view next_line(std::string_view& rest) {
  const size_t nl = rest.find('\n');
  std::string_view line = rest.substr(0, nl);
  rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

Status parse_request_line(std::string_view line, RequestHead& head) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Err("malformed request line");
  }
  head.method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  head.version = line.substr(sp2 + 1);
  if (!is_token(head.method)) return Err("malformed method");
  if (target.empty() || target.front() != '/') return Err("the target must be a path");
  if (head.version != "HTTP/1.1" && head.version != "HTTP/1.0") return Err("unsupported version");
  head.path = target.substr(0, target.find('?'));
  if (const size_t q = target.find('?'); q != std::string_view::npos)
    head.query = target.substr(q + 1);
  return Ok{};
}

}  // namespace

std::optional<std::string_view> RequestHead::field(std::string_view name) const {
  for (const auto& [n, v] : fields) {
    if (iequals_ascii(n, name)) return v;
  }
  return std::nullopt;
}

std::optional<size_t> head_end(std::string_view bytes) {
  const size_t crlf = bytes.find("\r\n\r\n");
  const size_t lf = bytes.find("\n\n");
  if (crlf == std::string_view::npos && lf == std::string_view::npos) return std::nullopt;
  if (lf == std::string_view::npos || (crlf != std::string_view::npos && crlf < lf))
    return crlf + 4;
  return lf + 2;
}

Result<RequestHead> parse_request_head(std::string_view head) {
  RequestHead parsed;
  std::string_view rest = head;
  if (Status line = parse_request_line(next_line(rest), parsed); !line) return Error{line.error()};
  for (std::string_view line = next_line(rest); !line.empty(); line = next_line(rest)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Err("malformed header field");
    const std::string_view name = line.substr(0, colon);
    // No whitespace before the colon (RFC 9112 5.1), no obsolete line folding.
    if (!is_token(name)) return Err("malformed header field name");
    const std::string_view value = trim_http_whitespace(line.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return (u < 32 && c != '\t') || u == 127;
        })) {
      return Err("control character in a header field");
    }
    parsed.fields.emplace_back(name, value);
  }
  return parsed;
}

}  // namespace ibpulse::exporters::prometheus::detail
