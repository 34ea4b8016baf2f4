#pragma once
// A real net-snmp snmptrapd on a loopback port, for the notification tests: started with its
// own configuration and persistent directory (nothing of /etc/snmp or ~/.snmp), it prints
// every notification it receives, which is parsed back into OIDs, types and values.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ibpulse::testing {

struct TrapdUser {
  std::string name;
  std::string auth_protocol = "SHA";
  std::string auth_password;
  std::string priv_protocol = "AES";
  std::string priv_password;
  // "0x...": the sender's engineID, for SNMPv3 traps from that engine (`createUser -e`); empty:
  // a user of snmptrapd's own engine, for SNMPv3 informs.
  std::string engine_id;
};

struct TrapVarBind {
  std::string oid;    // numeric, without the leading dot: "1.3.6.1.2.1.1.3.0"
  std::string type;   // as snmptrapd names it: "INTEGER", "STRING", "Counter64", "OID", ...
  std::string value;  // strings unquoted, OIDs without the leading dot, Timeticks as hundredths
};

struct TrapNotification {
  std::string
      security;  // snmptrapd's %P: "TRAP2, SNMP v2c, community public", "INFORM, SNMP v3, ..."
  std::string trap_oid;                        // snmpTrapOID.0's value
  std::vector<TrapVarBind> varbinds;           // all of them, sysUpTime.0 and snmpTrapOID.0 first
  std::chrono::steady_clock::time_point seen;  // when wait_for() first saw it (polled every 5 ms)

  const TrapVarBind* find(const std::string& oid) const;
  // "TYPE value" of the varbind named `oid` ("Gauge32 7", "Hex-STRING FE 80 ..." without the
  // space snmptrapd leaves after a Hex-STRING's last octet), "absent" when it has none.
  std::string value_of(const std::string& oid) const;
};

class Snmptrapd {
 public:
  // On `port` (0: a free one) of 127.0.0.1. Returns once it listens; null (and a gtest failure)
  // when it would not start.
  static std::unique_ptr<Snmptrapd> start(const std::vector<TrapdUser>& users = {},
                                          uint16_t port = 0);
  ~Snmptrapd();  // stops it and removes its directory
  Snmptrapd(const Snmptrapd&) = delete;
  Snmptrapd& operator=(const Snmptrapd&) = delete;

  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // Notifications received so far, in order.
  std::vector<TrapNotification> notifications();
  // Waits until at least `n` have arrived or `timeout` passed; returns what arrived.
  std::vector<TrapNotification> wait_for(size_t n, std::chrono::milliseconds timeout);
  std::string output() const;  // snmptrapd's whole output, for failure messages

  // A free UDP port on 127.0.0.1 (bound and released: nobody listens there afterwards).
  static uint16_t free_port();

 private:
  Snmptrapd() = default;
  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::vector<TrapNotification> seen_;
};

}  // namespace ibpulse::testing
