#include "ibpulse/exporters/remote_write/encoder.h"

#include <snappy.h>

#include <algorithm>
#include <bit>
#include <deque>

#include "label_scan.h"

// The protobuf wire format of proto/remote_write.proto, written by hand: building generated
// messages allocated a string per label and took most of the senders' time at 70,000 ports
// (bench/remote_write_bench). The unit tests decode every body with libprotobuf and the
// messages generated from that file, so the two cannot drift apart.
namespace ibpulse::exporters::remote_write {
namespace {

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited).
constexpr char kTimeSeries = 0x0A;   // WriteRequest.timeseries = 1
constexpr char kLabel = 0x0A;        // TimeSeries.labels = 1
constexpr char kSample = 0x12;       // TimeSeries.samples = 2
constexpr char kName = 0x0A;         // Label.name = 1
constexpr char kValue = 0x12;        // Label.value = 2
constexpr char kSampleValue = 0x09;  // Sample.value = 1 (double)
constexpr char kTimestamp = 0x10;    // Sample.timestamp = 2 (int64)

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_bytes(std::string& out, char tag, std::string_view bytes) {
  out.push_back(tag);
  put_varint(out, bytes.size());
  out.append(bytes);
}

size_t bytes_size(std::string_view bytes) {
  return 1 + varint_size(bytes.size()) + bytes.size();
}

struct LabelView {
  std::string_view name, value;
  size_t size() const { return bytes_size(name) + bytes_size(value); }
};

// The labels of one series as views into its text (`unescaped` holds the rare values that had
// escapes), plus the external ones it lacks, sorted by name.
bool read_labels(std::string_view series, const Labels& external, std::vector<LabelView>& out,
                 std::deque<std::string>& unescaped) {
  out.clear();
  const size_t brace = series.find('{');
  out.push_back({"__name__", series.substr(0, brace)});
  if (brace != std::string_view::npos) {
    if (series.back() != '}') return false;
    const bool ok = for_each_label(series.substr(brace + 1, series.size() - brace - 2),
                                   [&](std::string_view name, std::string_view value) {
                                     if (value.find('\\') != std::string_view::npos) {
                                       value = unescaped.emplace_back(unescape(value));
                                     }
                                     out.push_back({name, value});
                                     return true;
                                   });
    if (!ok) return false;
  }
  const size_t own = out.size();
  for (const auto& label : external) {
    const auto end = out.begin() + static_cast<std::ptrdiff_t>(own);
    // (not a structured binding: clang 14, the fuzz tree's compiler, cannot capture one)
    if (std::none_of(out.begin(), end, [&](const LabelView& l) { return l.name == label.first; }))
      out.push_back({label.first, label.second});  // the series' own label wins, as in Prometheus
  }
  std::sort(out.begin(), out.end(),
            [](const LabelView& a, const LabelView& b) { return a.name < b.name; });
  return true;
}

void put_time_series(std::string& out, const std::vector<LabelView>& labels, double value,
                     int64_t timestamp_ms) {
  const auto timestamp = static_cast<uint64_t>(timestamp_ms);  // int64: two's complement
  const size_t sample_size = 1 + 8 + 1 + varint_size(timestamp);
  size_t size = 1 + varint_size(sample_size) + sample_size;
  for (const LabelView& l : labels)
    size += 1 + varint_size(l.size()) + l.size();
  out.push_back(kTimeSeries);
  put_varint(out, size);
  for (const LabelView& l : labels) {
    out.push_back(kLabel);
    put_varint(out, l.size());
    put_bytes(out, kName, l.name);
    put_bytes(out, kValue, l.value);
  }
  out.push_back(kSample);
  put_varint(out, sample_size);
  out.push_back(kSampleValue);
  const auto bits = std::bit_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>(bits >> (8 * i) & 0xFF));  // little-endian fixed64
  out.push_back(kTimestamp);
  put_varint(out, timestamp);
}

}  // namespace

double stale_nan() {
  return std::bit_cast<double>(kStaleNaNBits);
}

bool is_stale_marker(double value) {
  return std::bit_cast<uint64_t>(value) == kStaleNaNBits;
}

bool RequestBuilder::add(std::string_view series, double value, int64_t timestamp_ms) {
  // Scratch kept between calls: a vector and deque per sample cost allocations each time.
  thread_local std::vector<LabelView> labels;
  thread_local std::deque<std::string> unescaped;
  unescaped.clear();
  if (!read_labels(series, external_, labels, unescaped)) return false;
  last_start_ = raw_.size();
  if (raw_.empty()) raw_.reserve(size_t{64} << 10);
  put_time_series(raw_, labels, value, timestamp_ms);
  ++samples_;
  return true;
}

void RequestBuilder::undo_last() {
  if (samples_ == 0) return;
  raw_.resize(last_start_);
  --samples_;
}

std::string RequestBuilder::take() {
  std::string body;
  snappy::Compress(raw_.data(), raw_.size(), &body);
  body.shrink_to_fit();  // queued until sent: its compressed size, not the bound snappy reserves
  raw_.clear();
  samples_ = last_start_ = 0;
  return body;
}

Result<std::string> encode_write_request(std::span<const Sample> samples,
                                         const Labels& external_labels) {
  RequestBuilder builder(external_labels);
  for (const Sample& s : samples) {
    if (!builder.add(s.series, s.value, s.timestamp_ms))
      return Err("malformed series '{}'", s.series);
  }
  return builder.take();
}

}  // namespace ibpulse::exporters::remote_write
