#include "umad_port.h"

#include <infiniband/umad.h>

#include <cstring>
#include <vector>

#include "mad_codec.h"

namespace ibpulse::collector {
namespace {

class LibUmadPort final : public UmadPort {
 public:
  explicit LibUmadPort(int port_id)
      : port_id_(port_id), send_buf_(umad_size() + kMadSize), recv_buf_(umad_size() + kMadSize) {}
  ~LibUmadPort() override { umad_close_port(port_id_); }

  int register_agent(int mgmt_class) override {
    return umad_register(port_id_, mgmt_class, 1, 0, nullptr);
  }
  void unregister_agent(int agent) override { umad_unregister(port_id_, agent); }

  uint8_t* send_buffer() override { return static_cast<uint8_t*>(umad_get_mad(send_buf_.data())); }

  int send(int agent, const UmadAddress& to, std::chrono::milliseconds timeout) override {
    umad_set_addr(send_buf_.data(), to.lid, to.qp, 0, to.q_key);
    return umad_send(port_id_, agent, send_buf_.data(), static_cast<int>(kMadSize),
                     static_cast<int>(timeout.count()), 0);
  }

  bool receive(std::chrono::milliseconds timeout, UmadReceived& out) override {
    int length = static_cast<int>(kMadSize);
    const int agent =
        umad_recv(port_id_, recv_buf_.data(), &length, static_cast<int>(timeout.count()));
    if (agent < 0) return false;
    out.agent = agent;
    out.status = umad_status(recv_buf_.data());
    out.length = length;
    out.mad = static_cast<const uint8_t*>(umad_get_mad(recv_buf_.data()));
    return true;
  }

  Clock::time_point now() const override { return Clock::now(); }

 private:
  int port_id_;
  std::vector<uint8_t> send_buf_;
  std::vector<uint8_t> recv_buf_;
};

}  // namespace

std::unique_ptr<UmadPort> make_libumad_port(int port_id) {
  return std::make_unique<LibUmadPort>(port_id);
}

Result<std::unique_ptr<MadEngine>> MadEngine::open(const std::string& ca, int port,
                                                   const MadEngineOptions& options) {
  if (umad_init() < 0) return Err("cannot initialise libibumad");
  const int port_id = umad_open_port(ca.empty() ? nullptr : ca.c_str(), port);
  if (port_id < 0) {
    return Err("cannot open {} port {}: {}", ca.empty() ? "the first HCA" : ca, port,
               std::strerror(-port_id));
  }
  return make_mad_engine(make_libumad_port(port_id), options);
}

}  // namespace ibpulse::collector
