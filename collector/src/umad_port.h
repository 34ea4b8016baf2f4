#pragma once
// The MAD engine's only contact with the world outside the process: one local HCA port as
// libibumad offers it (agents, sending a MAD, waiting for one) and the clock its timers run on.
// The engine is written against this interface so that its unit tests can script the fabric
// (late, lost, short and busy replies) and time itself (tests/unit/scripted_umad.h); the
// daemon uses LibUmadPort, libibumad and std::chrono::steady_clock.
//
// Thread safety: as MadEngine, one thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ibpulse/base/result.h"
#include "ibpulse/collector/mad_engine.h"

namespace ibpulse::collector {

struct UmadAddress {
  uint16_t lid = 0;
  int qp = 1;     // 0 for SMPs, 1 for GMPs
  int q_key = 0;  // QP1's well-known Q_Key for GMPs, 0 for SMPs
};

// One MAD taken off the port: `agent` is the agent it arrived for, `status` umad's (non-zero:
// our own send came back undelivered), `length` the bytes received (a MAD is 256).
struct UmadReceived {
  int agent = -1;
  int status = 0;
  int length = 0;
  const uint8_t* mad = nullptr;  // valid until the next receive()
};

class UmadPort {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~UmadPort() = default;

  // An agent id for management class `mgmt_class` (version 1), or a negative errno.
  virtual int register_agent(int mgmt_class) = 0;
  virtual void unregister_agent(int agent) = 0;
  // Where the next MAD to send is written (256 bytes).
  virtual uint8_t* send_buffer() = 0;
  // Sends the MAD in send_buffer(); 0, or a negative value when it could not be sent.
  virtual int send(int agent, const UmadAddress& to, std::chrono::milliseconds timeout) = 0;
  // Waits up to `timeout` for one MAD; false when none came (a timeout or an error).
  virtual bool receive(std::chrono::milliseconds timeout, UmadReceived& out) = 0;
  virtual Clock::time_point now() const = 0;
};

// libibumad's port `port_id`, opened by the caller; closed by the destructor.
std::unique_ptr<UmadPort> make_libumad_port(int port_id);

// The engine over `port` (which it owns): registers the PMA agent (class 0x04).
Result<std::unique_ptr<MadEngine>> make_mad_engine(std::unique_ptr<UmadPort> port,
                                                   const MadEngineOptions& options);

}  // namespace ibpulse::collector
