#include "gzip.h"

#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstddef>

namespace ibpulse::exporters::prometheus {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// q=0, q=0.0, q=0.000 refuse a coding; anything else (or no q) accepts it.
bool q_is_zero(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view param = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (param.size() < 2 || std::tolower(static_cast<unsigned char>(param[0])) != 'q' ||
        param[1] != '=') {
      continue;
    }
    std::string_view value = param.substr(2);
    return !value.empty() && value.find_first_not_of("0.") == std::string_view::npos;
  }
  return false;
}

// One deflate state per thread: deflateInit2 allocates ~256 KiB, deflateReset reuses it.
class Deflater {
 public:
  Deflater() = default;
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    if (initialized_) deflateEnd(&stream_);
  }

  z_stream* get() {
    if (!initialized_) {
      // 15 + 16: a gzip wrapper. Level 1: /metrics text compresses ~10x even at the fastest
      // level, and compression time adds to every scrape of a large fabric.
      if (deflateInit2(&stream_, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
          Z_OK) {
        return nullptr;
      }
      initialized_ = true;
    } else if (deflateReset(&stream_) != Z_OK) {
      return nullptr;
    }
    return &stream_;
  }

 private:
  z_stream stream_{};
  bool initialized_ = false;
};

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  bool any = false;
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    size_t semi = item.find(';');
    std::string_view coding = trim(item.substr(0, semi));
    std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1);
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) return !q_is_zero(params);
    if (coding == "*") any = !q_is_zero(params);
  }
  return any;
}

Status gzip_compress(std::string_view in, std::string& out) {
  thread_local Deflater deflater;
  z_stream* stream = deflater.get();
  if (stream == nullptr) return Err("gzip: cannot initialise zlib");

  // deflateBound covers the whole output, so one deflate call normally suffices; the loop is
  // for inputs over 4 GiB (avail_in is 32-bit).
  out.resize(std::max<size_t>(deflateBound(stream, static_cast<uLong>(in.size())), 64));
  size_t produced = 0;
  stream->next_in = reinterpret_cast<const Bytef*>(in.data());
  size_t remaining = in.size();
  int flush = Z_NO_FLUSH;
  int rc = Z_OK;
  do {
    auto chunk = static_cast<uInt>(std::min<size_t>(remaining, UINT_MAX));
    stream->avail_in = chunk;
    remaining -= chunk;
    flush = remaining == 0 ? Z_FINISH : Z_NO_FLUSH;
    do {
      if (produced == out.size()) out.resize(out.size() * 2);
      auto room = static_cast<uInt>(std::min<size_t>(out.size() - produced, UINT_MAX));
      stream->next_out = reinterpret_cast<Bytef*>(out.data() + produced);
      stream->avail_out = room;
      rc = deflate(stream, flush);
      if (rc == Z_STREAM_ERROR) return Err("gzip: deflate failed");
      produced += room - stream->avail_out;
    } while (stream->avail_out == 0);
  } while (flush != Z_FINISH);
  if (rc != Z_STREAM_END) return Err("gzip: deflate did not finish");
  out.resize(produced);
  return Ok{};
}

}  // namespace ibpulse::exporters::prometheus
