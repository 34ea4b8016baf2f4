#pragma once
// Series as /metrics writes them. The Prometheus renderer is the one place metric names and
// labels are declared; remote write renders the same text and reads it back here, so both
// paths always carry the same series. The text is our own (format 0.0.4, no timestamps, label
// values escaped by append_escaped_label_value), so the parser is small.
//
// Thread safety: pure functions; a MetricSelection is immutable after construction.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::remote_write {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One sample line `name{labels} value` split up; nullopt for comments and blank lines.
struct SeriesLine {
  std::string_view series;  // `name{labels}` (or `name`): the series' identity
  std::string_view name;
  std::string_view labels;  // between the braces, escaped as written
  double value = 0;
};
std::optional<SeriesLine> parse_line(std::string_view line);

// A sample value as the text format writes it: integers (exact to 2^53 as double), floats,
// NaN, +Inf, -Inf.
std::optional<double> parse_value(std::string_view text);

// The labels of `series` for a TimeSeries: `__name__` and every label, values unescaped,
// sorted by name (receivers expect that), with `external` added where the series lacks them.
Result<Labels> series_labels(std::string_view series, const Labels& external = {});

// The (escaped) value of label `name` in the label text of a series, if it is there.
std::optional<std::string_view> label_value(std::string_view labels, std::string_view name);

// A 64-bit hash of the series text: the series' key in the change filter and for sharding.
uint64_t series_hash(std::string_view series);

// remote-write.metrics: the families sent, by name or prefix; empty selects everything.
class MetricSelection {
 public:
  explicit MetricSelection(std::vector<std::string> prefixes = {});
  bool selects(std::string_view name) const;

 private:
  std::vector<std::string> prefixes_;
};

}  // namespace ibpulse::exporters::remote_write
