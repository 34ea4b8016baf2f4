#pragma once
// A /metrics response written while the body is still being rendered: the head goes out with
// the first bytes, the body in HTTP/1.1 chunks (gzip-compressed when the client asked), so a
// 70,000-port scrape (~250 MB of text) needs a chunk of memory, not the whole text. Private to
// the exporter.
//
// A chunked body ends with a zero-size chunk; a scrape that fails midway closes the connection
// without it, so the scraper sees a broken response rather than a short one that parses.
//
// Thread safety: one response belongs to one worker thread.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gzip.h"
#include "http_connection.h"

namespace ibpulse::exporters::prometheus {

class StreamedResponse {
 public:
  // Thrown by write() to stop the rendering: the client went away or compression failed.
  struct Aborted : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  // `headers`: "Name: value\r\n" lines of a 200 response. `chunked`: false for HTTP/1.0
  // clients, whose body then ends where the connection does.
  StreamedResponse(detail::Connection& connection, std::string_view headers, bool chunked,
                   std::optional<GzipStream> gzip);

  void write(std::string_view piece);  // throws Aborted
  void finish();                       // the rest of the body and its end; throws Aborted
  void send_head();                    // for HEAD requests; throws Aborted
  bool head_sent() const { return head_sent_; }

 private:
  void flush_pending();
  void send_chunk(std::string_view data);
  void send(std::string_view bytes);

  detail::Connection& connection_;
  std::string_view headers_;
  bool chunked_;
  bool head_sent_ = false;
  std::optional<GzipStream> gzip_;
  std::string& pending_;  // the worker thread's reused buffer of body bytes not yet sent
};

}  // namespace ibpulse::exporters::prometheus
