#include "ibpulse/exporters/remote_write/options.h"

namespace ibpulse::exporters::remote_write {

config::Keys<WriterOptions> remote_write_keys() {
  using namespace std::chrono_literals;
  return {
      {{"remote-write.url",
        "Prometheus remote-write receivers (list; each a URL or a map: url, headers, username, "
        "password, password-file, bearer-token-file, tls-ca-file, tls-cert-file, tls-key-file, "
        "external-labels, batch-size, queue-samples, queue-bytes, concurrency, timeout; "
        "docs/remote-write.md)",
        "", true, true},
       [](WriterOptions& o, const ConfigNode& v) -> Status {
         o.endpoints.clear();
         const auto items = v.as_list();
         for (size_t i = 0; i < items.size(); ++i) {
           auto e = parse_endpoint(*items[i]);
           if (!e) return Err("receiver {}: {}", i + 1, e.error());
           o.endpoints.push_back(std::move(*e));
         }
         return Ok{};
       }},
      {{"remote-write.metrics",
        "Metric families sent by remote write, by name or prefix (list; default: all of "
        "/metrics' fabric metrics)",
        ""},
       config::strings(IBPULSE_CONFIG_FIELD(metrics))},
      {{"remote-write.changed-only",
        "Send a series whose value did not change only every remote-write.resend", "true"},
       config::boolean(IBPULSE_CONFIG_FIELD(changed_only))},
      {{"remote-write.resend", "Time between sends of an unchanged series (changed-only)", "60s"},
       config::duration(IBPULSE_CONFIG_FIELD(resend), 1s)},
      {{"remote-write.instance",
        "The instance label of the daemon's own ibpulse_* series when pushed (port series never "
        "carry it); give each collector of a host its own",
        "the host name"},
       config::text(IBPULSE_CONFIG_FIELD(instance))},
  };
}

}  // namespace ibpulse::exporters::remote_write
