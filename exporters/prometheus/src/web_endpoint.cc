#include "ibpulse/exporters/prometheus/web_endpoint.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "ibpulse/base/number.h"
#include "ibpulse/exporters/alerts/health_view.h"
#include "landing_page.h"

namespace ibpulse::exporters::prometheus {

WebEndpoint::WebEndpoint(MetricGroups groups, Sources sources)
    : sources_(std::move(sources)), renderer_(groups), self_(IBPULSE_VERSION) {}

Result<std::unique_ptr<WebEndpoint>> WebEndpoint::start(const WebOptions& web, Sources sources) {
  if (web.listen_address == "off") return std::unique_ptr<WebEndpoint>();
  std::unique_ptr<WebEndpoint> endpoint(new WebEndpoint(web.collect, std::move(sources)));
  HttpOptions options;
  options.listen_address = web.listen_address;
  options.web_config_file = web.config_file;
  WebEndpoint* self = endpoint.get();
  auto server = MetricsServer::start(
      options, [self](const MetricsServer::BodyWriter& write) { self->metrics(write); },
      [self] { return self->landing(); },
      [self](const MetricsServer::BodyWriter& write) {
        const auto snap = self->sources_.snapshots->load();
        self->self_metrics(write, snap.get());
      },
      {{"/api/health", "application/json",
        [self](std::string_view query) { return self->health_json(false, query); }},
       {"/api/health/grid", "application/json",
        [self](std::string_view query) { return self->health_json(true, query); }}});
  if (!server) return Error{server.error()};
  endpoint->server_ = std::move(*server);
  endpoint->serving_.store(endpoint->server_.get(), std::memory_order_release);
  return endpoint;
}

void WebEndpoint::metrics(const MetricsServer::BodyWriter& write) {
  // One snapshot for the whole scrape: a rediscovery or a sweep publishing meanwhile never mixes
  // into it. The scratch buffer (~1 MB) is the worker thread's.
  const auto snap = sources_.snapshots->load();
  thread_local std::string scratch;
  if (snap) renderer_.render(*snap, scratch, write);
  if (sources_.healths != nullptr) {
    if (const auto health = sources_.healths->load())
      renderer_.render_health(*health, scratch, write);
  }
  self_metrics(write, snap.get());
}

void WebEndpoint::self_metrics(const MetricsServer::BodyWriter& write,
                               const converters::FabricSnapshot* snap) {
  thread_local std::string scratch;
  DaemonStatus status;
  static_cast<converters::PipelineStatus&>(status) = converters::pipeline_status(
      sources_.poller(), sources_.converter(), snap, converters::Clock::now());
  if (sources_.alerts) sources_.alerts(status);
  if (const auto* server = serving_.load(std::memory_order_acquire)) {
    const auto st = server->stats();
    status.scrapes = st.scrapes;
    status.scrape_errors = st.errors;
    status.last_scrape_seconds = st.last_scrape_seconds;
    status.http_unauthorized = st.unauthorized;
    status.http_tls_failures = st.tls_failures;
    status.http_bad_requests = st.bad_requests;
  }
  scratch.clear();
  self_.update(status);
  self_.append(scratch);
  write(scratch);
}

namespace {

// One parameter of a query string ("filter=%5Eleaf&links=50"), percent- and '+'-decoded;
// nothing when absent.
std::optional<std::string> query_value(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::string_view item = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), item.size() + 1));
    if (!item.starts_with(name) || item.size() <= name.size() || item[name.size()] != '=') continue;
    std::string out;
    for (size_t i = name.size() + 1; i < item.size(); ++i) {
      unsigned hex = 0;
      if (item[i] == '%' && i + 2 < item.size() &&
          std::from_chars(item.data() + i + 1, item.data() + i + 3, hex, 16).ptr ==
              item.data() + i + 3) {
        out.push_back(static_cast<char>(hex));
        i += 2;
      } else {
        out.push_back(item[i] == '+' ? ' ' : item[i]);
      }
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::string WebEndpoint::health_json(bool grid, std::string_view query) const {
  exporters::alerts::HealthViewLimits limits;
  std::shared_ptr<const exporters::alerts::NameFilter> filter;
  if (auto text = query_value(query, "filter"); text && !text->empty()) {
    auto compiled = exporters::alerts::NameFilter::compile(*text);
    if (!compiled) return nlohmann::json{{"error", "filter: " + compiled.error()}}.dump();
    filter = *compiled;
    limits.filter = filter.get();
  }
  if (auto text = query_value(query, "links")) {
    auto n = parse_unsigned(*text, 1, 100000);
    if (!n) return nlohmann::json{{"error", "links: " + n.error()}}.dump();
    limits.links = *n;
  }
  auto snap = sources_.snapshots->load();
  auto health = sources_.healths ? sources_.healths->load() : nullptr;
  // Before the first judgement (or with the alert loop off): the same shape, empty.
  static const converters::FabricSnapshot kNoSnapshot;
  static const exporters::alerts::HealthSnapshot kNoHealth;
  const converters::FabricSnapshot& s = snap && health ? *snap : kNoSnapshot;
  const exporters::alerts::HealthSnapshot& h = snap && health ? *health : kNoHealth;
  return grid ? exporters::alerts::health_grid_json(s, h)
              : exporters::alerts::health_view_json(s, h, limits);
}

std::string WebEndpoint::landing() const {
  const auto snap = sources_.snapshots->load();
  const auto st = sources_.poller();
  return landing_page({st.nodes, st.ports, snap ? snap->ports.size() : 0, st.sweeps,
                       st.last_sweep.stale, st.last_sweep.seconds});
}

}  // namespace ibpulse::exporters::prometheus
