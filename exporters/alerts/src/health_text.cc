#include "ibpulse/exporters/alerts/health_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ibpulse::exporters::alerts {
namespace {

using nlohmann::json;

int state_rank(const json& link) {
  const std::string s = link.value("state", "ok");
  return s == "failing" ? 2 : s == "degraded" ? 1 : 0;
}

double ber_of(const json& end) {
  if (!end.is_object()) return 0;
  double worst = 0;
  for (const char* key : {"symbol_ber", "effective_ber"}) {
    if (end.contains(key) && end[key].is_number()) worst = std::max(worst, end[key].get<double>());
  }
  return worst;
}

double link_ber(const json& link) {
  return std::max(ber_of(link["a"]), ber_of(link["b"]));
}

uint64_t link_flaps(const json& link) {
  uint64_t flaps = 0;
  for (const char* end : {"a", "b"}) {
    if (link[end].is_object()) flaps = std::max(flaps, link[end].value("flaps", uint64_t{0}));
  }
  return flaps;
}

bool matches(const json& port, const NameFilter& filter) {
  if (!port.is_object()) return false;
  return filter.search(port.value("node", std::string())) ||
         filter.search(port.value("node_guid", std::string()));
}

// NODE/PORT, at most 18 characters: a long node name keeps its end (where names differ).
std::string port_text(const json& port) {
  if (!port.is_object()) return "-";
  const std::string suffix = fmt::format("/{}", port.value("port", 0));
  std::string node = port.value("node", std::string("?"));
  constexpr size_t kWidth = 18;
  if (node.size() + suffix.size() > kWidth) {
    node.erase(0, node.size() + suffix.size() + 1 - kWidth);
    node.insert(node.begin(), '~');
  }
  return node + suffix;
}

std::string ber_text(const json& end, const char* key) {
  if (!end.is_object() || !end.contains(key) || !end[key].is_number()) return "-";
  const double v = end[key].get<double>();
  return v == 0 ? "0" : fmt::format("{:.1e}", v);
}

std::string reasons_text(const json& link) {
  std::string out;
  for (const auto& r : link.value("reasons", json::array())) {
    if (!out.empty()) out += ',';
    out += r.get<std::string>();
  }
  for (const char* end : {"a", "b"}) {
    const json& e = link[end];
    if (e.is_object() && e.value("maintenance", false)) return out.empty() ? "maintenance" : out;
    if (e.is_object() && e.value("held", false)) return out.empty() ? "switch held" : out;
  }
  return out;
}

std::string fit(std::string line, unsigned width) {
  if (line.size() > width) line.resize(width);
  return line;
}

// The end with the worse BER first, so a row's BER columns are of the end that receives errors.
std::pair<const json*, const json*> ends(const json& link) {
  const json& a = link["a"];
  const json& b = link["b"];
  return ber_of(b) > ber_of(a) ? std::pair{&b, &a} : std::pair{&a, &b};
}

json arranged(const json& health, const HealthTextView& view) {
  json out = health;
  json links = json::array();
  for (const auto& l : health.value("links", json::array())) {
    if (view.filter == nullptr || matches(l["a"], *view.filter) || matches(l["b"], *view.filter))
      links.push_back(l);
  }
  const auto key = [&](const json& l) {
    switch (view.sort) {
      case HealthSort::kBer:
        return std::tuple(link_ber(l), state_rank(l), static_cast<double>(link_flaps(l)));
      case HealthSort::kFlaps:
        return std::tuple(static_cast<double>(link_flaps(l)), state_rank(l), link_ber(l));
      case HealthSort::kState:
        break;
    }
    return std::tuple(static_cast<double>(state_rank(l)), 0, link_ber(l));
  };
  std::stable_sort(links.begin(), links.end(),
                   [&](const json& x, const json& y) { return key(x) > key(y); });
  out["links"] = std::move(links);
  json roots = json::array();
  for (const auto& r : health.value("roots", json::array())) {
    if (view.filter == nullptr || matches(r, *view.filter) || matches(r["peer"], *view.filter))
      roots.push_back(r);
  }
  out["roots"] = std::move(roots);
  return out;
}

}  // namespace

struct HealthDocument::Json {
  json document = json::object();
};

HealthDocument::HealthDocument() : json_(std::make_shared<Json>()) {}

Result<HealthDocument> HealthDocument::parse(std::string_view json_text) {
  auto parsed = json::parse(json_text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Err("not a health document (is this an ibpulse daemon?)");
  }
  if (parsed.contains("error")) {
    return Err("{}", parsed["error"].is_string() ? parsed["error"].get<std::string>() : "refused");
  }
  HealthDocument doc;
  doc.json_ = std::make_shared<Json>(Json{std::move(parsed)});
  return doc;
}

uint64_t HealthDocument::links() const {
  const json& summary = json_->document.value("summary", json::object());
  return summary.is_object() ? summary.value("links", uint64_t{0}) : 0;
}

HealthSort next_sort(HealthSort sort) {
  switch (sort) {
    case HealthSort::kState:
      return HealthSort::kBer;
    case HealthSort::kBer:
      return HealthSort::kFlaps;
    case HealthSort::kFlaps:
      return HealthSort::kState;
  }
  return HealthSort::kState;
}

const char* sort_name(HealthSort sort) {
  switch (sort) {
    case HealthSort::kState:
      return "state";
    case HealthSort::kBer:
      return "ber";
    case HealthSort::kFlaps:
      return "flaps";
  }
  return "state";
}

std::string arrange(const HealthDocument& health, const HealthTextView& view) {
  return arranged(health.json_->document, view).dump(1);
}

std::vector<std::string> render_health_text(const HealthDocument& document,
                                            const HealthTextView& view) {
  const json& health = document.json_->document;
  const json shown = arranged(health, view);
  const json summary = health.value("summary", json::object());
  std::vector<std::string> lines;
  const auto add = [&](const std::string& line) {
    if (lines.size() < view.height) lines.push_back(fit(line, view.width));
  };
  add(fmt::format("ibpulse top  {}  #{}", view.source, view.refresh));
  add(fmt::format(
      "links {}: {} failing, {} degraded, {} ok   roots {}, victims {}   switches down {}",
      summary.value("links", 0), summary.value("failing", 0), summary.value("degraded", 0),
      summary.value("ok", 0), summary.value("roots", 0), summary.value("victims", 0),
      summary.value("switches_down", json::array()).size()));
  add(fmt::format("sort: {} (s)  filter: {}  q quits{}", sort_name(view.sort),
                  view.filter_text.empty() ? "-" : view.filter_text,
                  view.error.empty() ? "" : "  ERROR: " + view.error));
  const json& roots = shown["roots"];
  const json& links = shown["links"];
  // The roots get up to a third of the rows left (at least their header and one), the links
  // the rest.
  const size_t free_rows = view.height > 6 ? view.height - 6 : 0;
  const size_t root_rows = std::min<size_t>(roots.size(), std::max<size_t>(1, free_rows / 3));
  const size_t link_rows = free_rows > root_rows ? free_rows - root_rows : 0;
  add("");
  add(fmt::format("{:<8} {:<18} {:<18} {:>8} {:>8} {:>5} {}", "STATE", "PORT", "PEER", "SYM BER",
                  "EFF BER", "FLAPS", "REASONS"));
  for (size_t i = 0; i < std::min(link_rows, links.size()); ++i) {
    const json& l = links[i];
    const auto [worse, other] = ends(l);
    add(fmt::format("{:<8} {:<18} {:<18} {:>8} {:>8} {:>5} {}", l.value("state", "?"),
                    port_text(*worse), port_text(*other), ber_text(*worse, "symbol_ber"),
                    ber_text(*worse, "effective_ber"), link_flaps(l), reasons_text(l)));
  }
  add(fmt::format("{:<18} {:<18} {:>7} {:>6} {:>6}", "CONGESTION ROOT", "FEEDS", "VICTIMS", "UTIL",
                  "WAIT"));
  for (size_t i = 0; i < root_rows; ++i) {
    const json& r = roots[i];
    const auto share = [&](const char* key) {
      return r.contains(key) && r[key].is_number()
                 ? fmt::format("{:.0f}%", r[key].get<double>() * 100)
                 : std::string("-");
    };
    add(fmt::format("{:<18} {:<18} {:>7} {:>6} {:>6}{}", port_text(r), port_text(r["peer"]),
                    r.value("victims", 0), share("utilization"), share("wait_ratio"),
                    r.value("stuck", false) ? " stuck" : ""));
  }
  return lines;
}

}  // namespace ibpulse::exporters::alerts
