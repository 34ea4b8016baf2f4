#include "streamed_response.h"

#include <fmt/format.h>

#include <array>

namespace ibpulse::exporters::prometheus {
namespace {

// Small pieces are gathered to this size before they go out as a chunk; a piece at least this
// large goes out as it is (the renderer's pieces are ~1 MB: copying them would cost time).
constexpr size_t kChunkBytes = size_t{64} * 1024;

std::string& thread_pending() {
  thread_local std::string pending;
  pending.clear();
  return pending;
}

}  // namespace

StreamedResponse::StreamedResponse(detail::Connection& connection, std::string_view headers,
                                   bool chunked, std::optional<GzipStream> gzip)
    : connection_(connection),
      headers_(headers),
      chunked_(chunked),
      gzip_(std::move(gzip)),
      pending_(thread_pending()) {}

void StreamedResponse::write(std::string_view piece) {
  if (gzip_) {
    if (!gzip_->write(piece, pending_).ok()) throw Aborted("gzip failed");
    if (pending_.size() >= kChunkBytes) flush_pending();
    return;
  }
  if (piece.size() >= kChunkBytes) {
    flush_pending();
    send_chunk(piece);
    return;
  }
  pending_.append(piece);
  if (pending_.size() >= kChunkBytes) flush_pending();
}

void StreamedResponse::finish() {
  if (gzip_ && !gzip_->finish(pending_).ok()) throw Aborted("gzip failed");
  flush_pending();
  send_head();  // an empty body still gets its head
  if (chunked_) send("0\r\n\r\n");
}

void StreamedResponse::send_head() {
  if (head_sent_) return;
  head_sent_ = true;
  send(fmt::format("HTTP/1.1 200 OK\r\n{}{}Connection: close\r\n\r\n", headers_,
                   chunked_ ? "Transfer-Encoding: chunked\r\n" : ""));
}

void StreamedResponse::flush_pending() {
  if (pending_.empty()) return;
  send_chunk(pending_);
  pending_.clear();
}

void StreamedResponse::send_chunk(std::string_view data) {
  if (data.empty()) return;  // a zero-size chunk would end the body
  send_head();
  if (chunked_) {
    std::array<char, 24> size_line{};
    char* end = fmt::format_to(size_line.data(), "{:x}\r\n", data.size());
    send(std::string_view(size_line.data(), static_cast<size_t>(end - size_line.data())));
  }
  send(data);
  if (chunked_) send("\r\n");
}

void StreamedResponse::send(std::string_view bytes) {
  if (!connection_.write(bytes)) {
    throw Aborted("the client went away");
  }
}

}  // namespace ibpulse::exporters::prometheus
