#include "serving_config.h"

#include "web_config.h"

namespace ibpulse::exporters::prometheus::detail {

Result<std::shared_ptr<const ServingConfig>> load_serving_config(
    const std::string& web_config_file) {
  auto serving = std::make_shared<ServingConfig>();
  if (web_config_file.empty()) {
    serving->auth = std::make_shared<BasicAuth>(std::vector<std::pair<std::string, std::string>>{});
    return std::shared_ptr<const ServingConfig>(std::move(serving));
  }
  Result<WebConfig> config = load_web_config(web_config_file);
  if (!config.ok()) return Error{config.error()};
  if (config->tls) {
    Result<TlsContext> tls = make_tls_context(config->tls_config);
    if (!tls.ok()) return Err("web config {}: {}", web_config_file, tls.error());
    serving->tls = std::move(*tls);
  }
  serving->auth = std::make_shared<BasicAuth>(std::move(config->users));
  return std::shared_ptr<const ServingConfig>(std::move(serving));
}

}  // namespace ibpulse::exporters::prometheus::detail
