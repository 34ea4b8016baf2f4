#include "pma_reader.h"

#include <infiniband/mad.h>

#include <cerrno>
#include <cstring>

namespace ibpulse::sim {

Result<std::unique_ptr<PmaReader>> PmaReader::open() {
  int classes[] = {IB_PERFORMANCE_CLASS};
  ibmad_port* port = mad_rpc_open_port(nullptr, 0, classes, 1);
  if (port == nullptr) {
    return Err("cannot open a MAD port (is this process attached to the simulated fabric?)");
  }
  mad_rpc_set_timeout(port, 1000);
  mad_rpc_set_retries(port, 2);
  return std::unique_ptr<PmaReader>(new PmaReader(port));
}

PmaReader::~PmaReader() {
  mad_rpc_close_port(port_);
}

Result<CounterValues> PmaReader::read(const PmaAttribute& attribute, unsigned lid, unsigned port) {
  ib_portid_t dest{};
  ib_portid_set(&dest, static_cast<int>(lid), 0, 0);
  uint8_t buf[1024] = {};
  errno = 0;
  if (pma_query_via(buf, &dest, static_cast<int>(port), 0,
                    static_cast<unsigned>(attribute.attribute_id), port_) == nullptr) {
    return Err("{} of LID {} port {}: {}", attribute.name, lid, port,
               errno != 0 ? std::strerror(errno) : "error status in the reply");
  }
  CounterValues values;
  for (const auto& f : attribute.fields) {
    uint64_t v = 0;
    mad_decode_field(buf, static_cast<MAD_FIELDS>(f.mad_field), &v);
    values.emplace(std::string(f.name), v);
  }
  return values;
}

}  // namespace ibpulse::sim
