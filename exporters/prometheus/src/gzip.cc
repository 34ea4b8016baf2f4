#include "gzip.h"

#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstddef>

#include "http_text.h"

namespace ibpulse::exporters::prometheus {
namespace {

using detail::iequals_ascii;
using detail::trim_http_whitespace;

// q=0, q=0.0, q=0.000 refuse a coding; anything else (or no q) accepts it.
bool q_is_zero(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view param = trim_http_whitespace(params.substr(0, semi));
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

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  bool any = false;
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    size_t semi = item.find(';');
    std::string_view coding = trim_http_whitespace(item.substr(0, semi));
    std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1);
    if (iequals_ascii(coding, "gzip") || iequals_ascii(coding, "x-gzip")) return !q_is_zero(params);
    if (coding == "*") any = !q_is_zero(params);
  }
  return any;
}

// One deflate state per thread: deflateInit2 allocates ~256 KiB, deflateReset reuses it.
struct GzipStream::Deflater {
  Deflater() = default;
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    if (initialized) deflateEnd(&stream);
  }

  bool reset() {
    if (initialized) return deflateReset(&stream) == Z_OK;
    // 15 + 16: a gzip wrapper. Level 1: /metrics text compresses ~10x even at the fastest
    // level, and compression time adds to every scrape of a large fabric.
    initialized =
        deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    return initialized;
  }

  z_stream stream{};
  bool initialized = false;
};

Result<GzipStream> GzipStream::begin() {
  thread_local Deflater deflater;
  if (!deflater.reset()) return Err("gzip: cannot initialise zlib");
  return GzipStream(&deflater);
}

Status GzipStream::write(std::string_view in, std::string& out) {
  return deflate_into(in, Z_NO_FLUSH, out);
}

Status GzipStream::finish(std::string& out) {
  return deflate_into({}, Z_FINISH, out);
}

// Runs deflate until it has taken all of `in` (and, for Z_FINISH, written the trailer), growing
// `out` as needed. Text compresses ~10x, so out grows by a fraction of in.
Status GzipStream::deflate_into(std::string_view in, int flush, std::string& out) {
  z_stream& stream = deflater_->stream;
  stream.next_in = reinterpret_cast<const Bytef*>(in.data());
  int rc = Z_OK;
  size_t remaining = in.size();
  do {
    // avail_in is 32-bit: feed inputs over 4 GiB in parts.
    auto part = static_cast<uInt>(std::min<size_t>(remaining, UINT_MAX));
    stream.avail_in = part;
    remaining -= part;
    const int mode = remaining == 0 ? flush : Z_NO_FLUSH;
    do {
      const size_t used = out.size();
      const size_t room = std::max<size_t>(part / 4, size_t{16} * 1024);
      out.resize(used + room);
      stream.next_out = reinterpret_cast<Bytef*>(out.data() + used);
      stream.avail_out = static_cast<uInt>(room);
      rc = deflate(&stream, mode);
      out.resize(used + room - stream.avail_out);
      if (rc == Z_STREAM_ERROR) return Err("gzip: deflate failed");
    } while (stream.avail_in > 0 || (mode == Z_FINISH && rc != Z_STREAM_END));
  } while (remaining > 0);
  return Ok{};
}

}  // namespace ibpulse::exporters::prometheus
