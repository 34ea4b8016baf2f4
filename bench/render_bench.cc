// The Prometheus scrape of a 70,000-port fabric (an ~11,000-host fabric): our renderer, which
// writes straight from the snapshot, against the straightforward prometheus-cpp way (a Family
// per metric, one child per port and label set, kept pointers updated each sweep, TextSerializer
// over Collect()), both exposing the very same series. Prints bytes, series, time per scrape
// (median of 5), gzip time and memory for both, and the ratios.
//
//   build/bench/render_bench
#include <fmt/format.h>
#include <malloc.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <vector>

#include "ibpulse/converters/converter.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "synthetic_fabric.h"

namespace {

using namespace ibpulse;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kPorts = 70000;
constexpr int kRuns = 5;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
double seconds(F&& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Heap bytes in use (glibc).
size_t heap() {
  return mallinfo2().uordblks;
}

double gzip_seconds(const std::string& text, size_t& compressed) {
  std::string out(compressBound(static_cast<uLong>(text.size())) + 64, '\0');
  return seconds([&] {
    z_stream z{};
    deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);  // level 1, as the server
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    compressed = z.total_out;
    deflateEnd(&z);
  });
}

struct Series {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Our exposition parsed back (the bench's fabric has no escapes in its label values).
std::vector<Series> parse(const std::string& text, std::map<std::string, std::string>& types,
                          std::map<std::string, std::string>& helps) {
  std::vector<Series> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    if (line.starts_with("# TYPE ")) {
      const auto rest = line.substr(7);
      const auto sp = rest.find(' ');
      types[std::string(rest.substr(0, sp))] = std::string(rest.substr(sp + 1));
      continue;
    }
    if (line.starts_with("# HELP ")) {
      const auto rest = line.substr(7);
      const auto sp = rest.find(' ');
      helps[std::string(rest.substr(0, sp))] = std::string(rest.substr(sp + 1));
      continue;
    }
    Series s;
    const auto brace = line.find('{');
    const auto close = line.rfind('}');
    s.name = std::string(line.substr(0, brace));
    std::string_view labels = line.substr(brace + 1, close - brace - 1);
    while (!labels.empty()) {
      const auto eq = labels.find('=');
      const auto q = labels.find('"', eq + 2);
      s.labels[std::string(labels.substr(0, eq))] = std::string(labels.substr(eq + 2, q - eq - 2));
      labels.remove_prefix(std::min(labels.size(), q + 2));
    }
    s.value = std::stod(std::string(line.substr(close + 2)));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

int main() {
  const auto snapshot = bench::synthetic_snapshot(kPorts);
  const exporters::prometheus::FabricRenderer renderer;

  // Ours: straight from the snapshot, streamed in 1 MB chunks from a reused buffer, as the
  // server sends it (the bytes are counted, as a socket would take them).
  // Memory: the heap in use at its peak during a scrape, over what was in use before it.
  const size_t heap_before_ours = heap();
  size_t ours_memory = 0;
  std::string scratch;
  size_t streamed = 0;
  std::vector<double> ours_times;
  ours_times.reserve(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    ours_times.push_back(seconds([&] {
      streamed = 0;
      renderer.render(*snapshot, scratch, [&](std::string_view chunk) {
        streamed += chunk.size();
        ours_memory = std::max(ours_memory, heap() - heap_before_ours);
      });
    }));
  }
  std::string ours;  // whole, only to parse it for prometheus-cpp and to time gzip on it
  renderer.render(*snapshot, ours);
  size_t ours_gz = 0;
  const double ours_gzip = gzip_seconds(ours, ours_gz);

  // prometheus-cpp: the same series in a registry, updated each sweep, serialised per scrape.
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> helps;
  const auto series = parse(ours, types, helps);
  const size_t heap_before_cpp = heap();
  auto registry = std::make_shared<prometheus::Registry>();
  std::map<std::string, prometheus::Family<prometheus::Counter>*> counters;
  std::map<std::string, prometheus::Family<prometheus::Gauge>*> gauges;
  std::vector<prometheus::Counter*> counter_children;
  std::vector<prometheus::Gauge*> gauge_children;
  for (const Series& s : series) {
    if (types[s.name] == "counter") {
      auto& family = counters[s.name];  // prometheus-cpp 1.0 writes the name as given
      if (!family) {
        family = &prometheus::BuildCounter().Name(s.name).Help(helps[s.name]).Register(*registry);
      }
      counter_children.push_back(&family->Add(s.labels));
      counter_children.back()->Increment(s.value);
    } else {
      auto& family = gauges[s.name];
      if (!family) {
        family = &prometheus::BuildGauge().Name(s.name).Help(helps[s.name]).Register(*registry);
      }
      gauge_children.push_back(&family->Add(s.labels));
      gauge_children.back()->Set(s.value);
    }
  }
  const double update = seconds([&] {  // what a sweep costs it on the polling path
    for (auto* c : counter_children)
      c->Increment(1);
    for (auto* g : gauge_children)
      g->Set(1);
  });
  std::string theirs;
  std::vector<double> cpp_times;
  cpp_times.reserve(kRuns);
  const prometheus::TextSerializer serializer;
  for (int i = 0; i < kRuns; ++i) {
    cpp_times.push_back(seconds([&] { theirs = serializer.Serialize(registry->Collect()); }));
  }
  const size_t cpp_memory = heap() - heap_before_cpp;  // the registry and the scrape's text
  size_t cpp_gz = 0;
  const double cpp_gzip = gzip_seconds(theirs, cpp_gz);

  const double ours_median = median(ours_times);
  const double cpp_median = median(cpp_times);
  fmt::print("70,000-port scrape, {} series ({} counter and gauge children in prometheus-cpp)\n",
             series.size(), counter_children.size() + gauge_children.size());
  fmt::print("{:<16} {:>12} {:>12} {:>14} {:>12} {:>12}\n", "", "bytes", "gzip bytes",
             "scrape (ms)", "gzip (ms)", "memory (MB)");
  fmt::print("{:<16} {:>12} {:>12} {:>14.1f} {:>12.1f} {:>12.1f}\n", "ibpulse", ours.size(),
             ours_gz, ours_median * 1e3, ours_gzip * 1e3, static_cast<double>(ours_memory) / 1e6);
  if (streamed != ours.size()) fmt::print("MISMATCH: streamed {} bytes\n", streamed);
  fmt::print("{:<16} {:>12} {:>12} {:>14.1f} {:>12.1f} {:>12.1f}\n", "prometheus-cpp",
             theirs.size(), cpp_gz, cpp_median * 1e3, cpp_gzip * 1e3,
             static_cast<double>(cpp_memory) / 1e6);
  fmt::print("prometheus-cpp sweep update of every child: {:.1f} ms\n", update * 1e3);
  fmt::print(
      "ratios: {:.1f}x faster (target >= 30x), {:.3f} of the memory (target < 0.1), "
      "{:.0f} ms per scrape (target < 150 ms)\n",
      cpp_median / ours_median,
      static_cast<double>(ours_memory) / static_cast<double>(std::max<size_t>(cpp_memory, 1)),
      ours_median * 1e3);
  return 0;
}
