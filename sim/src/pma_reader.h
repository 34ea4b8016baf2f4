#pragma once
// Synchronous PMA reads through libibmad, for the simulator's traffic generator and counter
// helpers. The process must run as a umad2sim client (LD_PRELOAD + IBSIM_SOCKNAME). The
// collector has its own asynchronous engine; this is deliberately the simple, independent path.

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "ibpulse/base/result.h"
#include "pma_fields.h"

struct ibmad_port;

namespace ibpulse::sim {

using CounterValues = std::map<std::string, uint64_t, std::less<>>;

class PmaReader {
 public:
  static Result<std::unique_ptr<PmaReader>> open();
  ~PmaReader();
  PmaReader(const PmaReader&) = delete;
  PmaReader& operator=(const PmaReader&) = delete;

  // Every field of `attribute` for the port at `lid` (a switch: its port-0 LID) and `port`.
  Result<CounterValues> read(const PmaAttribute& attribute, unsigned lid, unsigned port);

 private:
  explicit PmaReader(ibmad_port* port) : port_(port) {}
  ibmad_port* port_;
};

}  // namespace ibpulse::sim
