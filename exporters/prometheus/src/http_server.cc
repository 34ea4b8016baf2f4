#include "ibpulse/exporters/prometheus/http_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "connection_queue.h"
#include "http_connection.h"
#include "http_responder.h"
#include "listen_socket.h"
#include "serving_config.h"

namespace ibpulse::exporters::prometheus {
namespace {

constexpr std::chrono::milliseconds kBackOff{100};

}  // namespace

struct MetricsServer::Impl {
  Impl(MetricsFn metrics, LandingFn landing, MetricsFn self_metrics,
       std::vector<Document> documents)
      : responder(std::move(metrics), std::move(landing), std::move(self_metrics),
                  std::move(documents)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  detail::Responder responder;
  detail::Listener listener;
  std::array<int, 2> wake{-1, -1};  // written at stop: wakes the acceptor's poll
  detail::ConnectionQueue queue;
  std::vector<std::thread> threads;  // the acceptor, then the workers

  std::mutex serving_mutex;
  std::shared_ptr<const detail::ServingConfig> serving;

  ~Impl() {
    queue.stop();  // workers finish the request in hand; waiting heads end at once
    if (wake[1] >= 0) (void)!write(wake[1], "x", 1);
    for (auto& thread : threads)
      thread.join();
    for (const int fd : {listener.fd, wake[0], wake[1]}) {
      if (fd >= 0) close(fd);
    }
  }

  std::shared_ptr<const detail::ServingConfig> current() {
    const std::lock_guard lock(serving_mutex);
    return serving;
  }

  void accept_loop() {
    std::array<pollfd, 2> fds{pollfd{listener.fd, POLLIN, 0}, pollfd{wake[0], POLLIN, 0}};
    for (;;) {
      if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
      if (fds[1].revents != 0) return;
      if ((fds[0].revents & POLLIN) == 0) continue;
      const int fd = accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        // Out of descriptors: the connection stays queued and poll() would report it at once
        // again; wait a little instead of spinning. Other errors: the client gave up.
        if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(kBackOff);
        continue;
      }
      if (!queue.push(fd)) close(fd);  // stopping, or too many waiting: the client retries
    }
  }

  void worker_loop() {
    while (auto fd = queue.pop()) {
      detail::Connection connection(*fd);
      responder.serve(connection, *current());
      queue.done(*fd);  // before the connection closes fd, which a new accept may then reuse
    }
  }
};

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const HttpOptions& options,
                                                            MetricsFn metrics, LandingFn landing,
                                                            MetricsFn self_metrics,
                                                            std::vector<Document> documents) {
  if (options.threads == 0)
    return Err("cannot listen on {}: threads must be at least 1", options.listen_address);
  Result<std::shared_ptr<const detail::ServingConfig>> serving =
      detail::load_serving_config(options.web_config_file);
  if (!serving.ok()) return Error{serving.error()};
  Result<detail::Listener> listener = detail::open_listener(options.listen_address);
  if (!listener.ok()) return Error{listener.error()};
  // A client that goes away mid-response must not kill the daemon: OpenSSL writes to the socket
  // with write(2), which raises SIGPIPE (plain connections use MSG_NOSIGNAL).
  std::signal(SIGPIPE, SIG_IGN);

  auto impl = std::make_unique<Impl>(std::move(metrics), std::move(landing),
                                     std::move(self_metrics), std::move(documents));
  impl->listener = *listener;
  impl->serving = std::move(*serving);
  if (pipe2(impl->wake.data(), O_CLOEXEC) != 0) {
    return Err("cannot listen on {}: {}", options.listen_address, std::strerror(errno));
  }
  Impl* self = impl.get();
  impl->threads.emplace_back([self] { self->accept_loop(); });
  for (unsigned i = 0; i < options.threads; ++i) {
    impl->threads.emplace_back([self] { self->worker_loop(); });
  }
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl)));
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetricsServer::~MetricsServer() = default;

Status MetricsServer::reload_web_config(const std::string& web_config_file) {
  Result<std::shared_ptr<const detail::ServingConfig>> fresh =
      detail::load_serving_config(web_config_file);
  if (!fresh.ok()) return Error{fresh.error()};
  const std::lock_guard lock(impl_->serving_mutex);
  impl_->serving = std::move(*fresh);
  return Ok{};
}

uint16_t MetricsServer::port() const {
  return impl_->listener.port;
}

MetricsServer::Stats MetricsServer::stats() const {
  return impl_->responder.stats();
}

}  // namespace ibpulse::exporters::prometheus
