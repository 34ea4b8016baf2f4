#pragma once
// gzip for /metrics responses (zlib), compressed as the body streams out. Private to the
// exporter.
//
// Thread safety: a GzipStream belongs to one thread at a time; each thread keeps its own zlib
// state, so streams on distinct threads are independent.

#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus {

// True when an Accept-Encoding header value allows gzip ("gzip", "x-gzip" or "*", unless gzip
// is given q=0).
bool accepts_gzip(std::string_view accept_encoding);

// One gzip member, fed piece by piece: compressed bytes are appended to the caller's `out`,
// which the caller drains whenever it likes. The zlib state (~256 KiB) is the calling thread's
// and is reused by the next stream on that thread.
class GzipStream {
 public:
  // Fails only when zlib cannot allocate its state.
  static Result<GzipStream> begin();

  Status write(std::string_view in, std::string& out);
  Status finish(std::string& out);  // the last compressed bytes and the gzip trailer

 private:
  struct Deflater;
  explicit GzipStream(Deflater* deflater) : deflater_(deflater) {}
  Status deflate_into(std::string_view in, int flush, std::string& out);
  Deflater* deflater_;
};

}  // namespace ibpulse::exporters::prometheus
