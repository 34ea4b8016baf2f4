#pragma once
// What `remote-write.*` configures: the receivers (one Endpoint per `remote-write.url` item) and
// what is sent to all of them (docs/remote-write.md).
//
// Thread safety: value types and pure functions (parse_endpoint reads the files it names).
// The keys are declared beside the options (config_keys.cc); base/config_keys.h says how a
// program reads them.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/config_keys.h"
#include "ibpulse/base/result.h"

namespace ibpulse::exporters::remote_write {

struct Endpoint {
  std::string url;                             // http:// or https://
  std::map<std::string, std::string> headers;  // e.g. X-Scope-OrgID for a Mimir tenant
  std::string username, password;              // basic auth (password or password-file)
  std::string bearer_token;                    // read from bearer-token-file at start
  std::string tls_ca_file, tls_cert_file, tls_key_file;
  std::vector<std::pair<std::string, std::string>> external_labels;  // added to every series
  size_t batch_size = 2000;                                          // samples per request
  size_t queue_samples = 2'000'000;          // per URL, split evenly between its shards
  size_t queue_bytes = size_t{256} << 20;    // idem
  unsigned concurrency = 4;                  // requests in flight (one shard each)
  std::chrono::milliseconds timeout{30000};  // per request
  std::chrono::milliseconds min_backoff{30}, max_backoff{5000};
};

struct WriterOptions {
  std::vector<Endpoint> endpoints;
  std::vector<std::string> metrics;  // names or prefixes of the families sent; empty: all
  bool changed_only = true;
  std::chrono::milliseconds resend{60000};
  // The `instance` label of the daemon's own series (a scrape gets it from the target; a push
  // has none): the collector's name in per-collector panels. Port series never carry it, so
  // replicas and shards stay one series (docs/scale-out.md). Empty: the host name.
  std::string instance;
};

// One `remote-write.url` item: a plain URL, or a map of url, headers (map), username,
// password, password-file, bearer-token-file, tls-ca-file, tls-cert-file, tls-key-file,
// external-labels (map), batch-size, queue-samples, queue-bytes, concurrency, timeout. Errors
// name the key: an unknown one, a URL that is not http(s), a file that cannot be read.
Result<Endpoint> parse_endpoint(const ConfigNode& node);

// remote-write.url, metrics, changed-only, resend, instance.
config::Keys<WriterOptions> remote_write_keys();

// The URL without credentials (user:password@), for logs and the `url` label.
std::string redacted_url(std::string_view url);

}  // namespace ibpulse::exporters::remote_write
