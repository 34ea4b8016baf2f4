#include "ibpulse/exporters/remote_write/options.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "ibpulse/base/duration.h"
#include "ibpulse/base/number.h"

namespace ibpulse::exporters::remote_write {
namespace {

constexpr std::string_view kKeys =
    "url, headers, username, password, password-file, bearer-token-file, tls-ca-file, "
    "tls-cert-file, tls-key-file, external-labels, batch-size, queue-samples, queue-bytes, "
    "concurrency, timeout";

Status check_url(const std::string& url) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return Err("url '{}' is not http:// or https://", redacted_url(url));
  }
  if (url.find_first_of(" \t\r\n") != std::string::npos) {
    return Err("url '{}' contains white space", redacted_url(url));
  }
  return Ok{};
}

// The whole file, trailing newlines removed (a token file usually ends with one).
Result<std::string> read_secret(const std::string& key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Err("{}: cannot read '{}'", key, path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
    s.pop_back();
  return s;
}

Status check_readable(const std::string& key, const std::string& path) {
  if (std::ifstream(path, std::ios::binary)) return Ok{};
  return Err("{}: cannot read '{}'", key, path);
}

Result<std::string> text_of(const std::string& key, const ConfigNode& value) {
  if (value.is_scalar()) return value.text();
  return Err("{} must be text", key);
}

Result<uint64_t> number_of(const std::string& key, const ConfigNode& value, uint64_t min,
                           uint64_t max) {
  if (auto s = text_of(key, value)) {
    if (auto n = parse_unsigned(*s, min, max)) return *n;
  }
  return Err("{} must be a whole number from {} to {}", key, min, max);
}

Result<std::map<std::string, std::string>> map_of(const std::string& key, const ConfigNode& value) {
  if (!value.is_map()) return Err("{} must be a map of names to text", key);
  std::map<std::string, std::string> out;
  for (const auto& [name, v] : value.fields()) {
    auto s = text_of(key + "." + name, v);
    if (!s) return Error{s.error()};
    out[name] = *s;
  }
  return out;
}

// One key of an endpoint map.
Status apply(Endpoint& e, const std::string& key, const ConfigNode& value) {
  const auto text = [&](std::string& field) -> Status {
    auto s = text_of(key, value);
    if (!s) return Error{s.error()};
    field = *s;
    return Ok{};
  };
  const auto secret = [&](std::string& field) -> Status {
    std::string path;
    if (auto s = text(path); !s) return s;
    auto content = read_secret(key, path);
    if (!content) return Error{content.error()};
    field = *content;
    return Ok{};
  };
  const auto file = [&](std::string& field) -> Status {
    if (auto s = text(field); !s) return s;
    return check_readable(key, field);
  };
  const auto count = [&](size_t& field, uint64_t min, uint64_t max) -> Status {
    auto n = number_of(key, value, min, max);
    if (!n) return Error{n.error()};
    field = static_cast<size_t>(*n);
    return Ok{};
  };
  if (key == "url") return text(e.url);
  if (key == "username") return text(e.username);
  if (key == "password") return text(e.password);
  if (key == "password-file") return secret(e.password);
  if (key == "bearer-token-file") return secret(e.bearer_token);
  if (key == "tls-ca-file") return file(e.tls_ca_file);
  if (key == "tls-cert-file") return file(e.tls_cert_file);
  if (key == "tls-key-file") return file(e.tls_key_file);
  if (key == "batch-size") return count(e.batch_size, 1, 1'000'000);
  if (key == "queue-samples") return count(e.queue_samples, 1, uint64_t{1} << 32);
  if (key == "queue-bytes") return count(e.queue_bytes, 1024, uint64_t{1} << 40);
  if (key == "concurrency") {
    size_t n = 0;
    if (auto s = count(n, 1, 256); !s) return s;
    e.concurrency = static_cast<unsigned>(n);
    return Ok{};
  }
  if (key == "timeout") {
    auto s = text_of(key, value);
    auto d = s ? parse_duration(*s) : Result<std::chrono::milliseconds>(Error{s.error()});
    if (!d) return Err("timeout: {}", d.error());
    e.timeout = *d;
    return Ok{};
  }
  if (key == "headers") {
    auto m = map_of(key, value);
    if (!m) return Error{m.error()};
    e.headers = std::move(*m);
    return Ok{};
  }
  if (key == "external-labels") {
    auto m = map_of(key, value);
    if (!m) return Error{m.error()};
    e.external_labels.assign(m->begin(), m->end());
    return Ok{};
  }
  return Err("unknown key '{}' ({})", key, kKeys);
}

Status check_endpoint(const Endpoint& e) {
  if (e.url.empty()) return Err("url is missing");
  if (auto s = check_url(e.url); !s) return s;
  if (!e.password.empty() && e.username.empty()) return Err("a password needs a username");
  if (!e.bearer_token.empty() && !e.username.empty()) {
    return Err("give basic auth (username) or bearer-token-file, not both");
  }
  if (e.tls_cert_file.empty() != e.tls_key_file.empty()) {
    return Err("tls-cert-file and tls-key-file go together");
  }
  return Ok{};
}

}  // namespace

Result<Endpoint> parse_endpoint(const ConfigNode& node) {
  Endpoint e;
  if (node.is_scalar()) {  // a plain URL
    e.url = node.text();
  } else if (node.is_map()) {
    for (const auto& [key, value] : node.fields()) {
      if (auto s = apply(e, key, value); !s) return Error{s.error()};
    }
  } else {
    return Err("a receiver is a URL or a map of url, headers, ...");
  }
  if (auto s = check_endpoint(e); !s) return Error{s.error()};
  return e;
}

std::string redacted_url(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const size_t host = scheme + 3;
  const size_t end = url.find_first_of("/?#", host);
  const size_t at = url.substr(0, end).rfind('@');
  if (at == std::string_view::npos || at < host) return std::string(url);
  return std::string(url.substr(0, host)) + std::string(url.substr(at + 1));
}

}  // namespace ibpulse::exporters::remote_write
