#pragma once
// gzip for /metrics responses (zlib). Private to the exporter.
//
// Thread safety: each thread uses its own zlib stream; calls from distinct threads are safe.

#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus {

// True when an Accept-Encoding header value allows gzip ("gzip", "x-gzip" or "*", unless gzip
// is given q=0).
bool accepts_gzip(std::string_view accept_encoding);

// Compresses `in` into `out` (replacing its contents) as one gzip member. The zlib stream and
// `out`'s capacity are reused between calls on the same thread.
Status gzip_compress(std::string_view in, std::string& out);

}  // namespace ibpulse::exporters::prometheus
