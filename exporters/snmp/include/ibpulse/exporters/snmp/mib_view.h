#pragma once
// What the SNMP agent serves, built from one FabricSnapshot: the system group, ifNumber, ifTable,
// ifXTable, IB-IF-MIB's ibIfPortStatTable and ibIfVLTrafficTable, for the whole fabric (the
// default context, ifIndex from the converters' stable table) and for each node (a context named
// by its GUID, `0x` + 16 hex digits, ifIndex = port number, switch port 0 left out); IBPULSE-MIB's
// port and link health tables beside them.
//
// Lookups are binary searches over rows sorted once per snapshot: a GET or GETNEXT costs
// O(log rows), never a scan. A view never changes after it is built, so a request that uses one
// view sees one snapshot.
//
// Thread safety: immutable after construction; get() and next() may run on any threads.

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/snmp/oids.h"

namespace ibpulse::exporters::snmp {

enum class VarType : uint8_t {
  kInteger,
  kOctetString,
  kObjectId,
  kCounter32,
  kGauge32,
  kTimeTicks,
  kCounter64,
};

// One variable binding. `number` holds every numeric type; `text` an OCTET STRING, `oid_value`
// an OBJECT IDENTIFIER. Callers reuse one VarBind so lookups allocate little.
struct VarBind {
  Oid name;
  VarType type = VarType::kInteger;
  uint64_t number = 0;
  std::string text;
  Oid oid_value;
};

// What the system group says (sysDescr and the rest).
struct SystemInfo {
  std::string descr = "ibpulse: InfiniBand fabric counters (IF-MIB, IB-IF-MIB)";
  Oid object_id = kIbpulseRoot;
  std::string contact;
  std::string name;  // default context; a node's context names the node
  std::string location;
};

class MibView {
 public:
  using Clock = std::chrono::steady_clock;

  // `agent_start`: sysUpTime 0; TimeTicks columns (ifLastChange, ifCounterDiscontinuityTime)
  // are sysUpTime at the event, 0 when it came before the agent started.
  // `link_up_down_traps`: whether the agent sends linkDown/linkUp (ifLinkUpDownTrapEnable).
  // `health`: the newest link health (ibpulseLinkHealthTable); none: the table is empty.
  MibView(std::shared_ptr<const converters::FabricSnapshot> snapshot, SystemInfo system,
          Clock::time_point agent_start, bool node_contexts = true, bool link_up_down_traps = false,
          std::shared_ptr<const alerts::HealthSnapshot> health = nullptr);
  ~MibView();
  MibView(const MibView&) = delete;
  MibView& operator=(const MibView&) = delete;

  // "" (the fabric) or a node's GUID context, when node contexts are on.
  bool has_context(std::string_view context) const;
  // The node contexts, sorted.
  std::vector<std::string> node_contexts() const;

  // GET: the instance `oid` names, into `out`; false when there is none (noSuchInstance).
  bool get(std::string_view context, std::span<const uint32_t> oid, Clock::time_point now,
           VarBind& out) const;
  // GETNEXT: the first instance after `oid` (or at it, when `inclusive`); false past the end.
  bool next(std::string_view context, std::span<const uint32_t> oid, bool inclusive,
            Clock::time_point now, VarBind& out) const;

  const converters::FabricSnapshot& snapshot() const { return *snapshot_; }
  bool link_up_down_traps() const { return link_up_down_traps_; }
  const alerts::HealthSnapshot* health() const { return health_.get(); }

  struct Context;  // the rows of one context (mib_view.cc)

 private:
  const Context* find_context(std::string_view name) const;

  std::shared_ptr<const converters::FabricSnapshot> snapshot_;
  std::shared_ptr<const alerts::HealthSnapshot> health_;
  SystemInfo system_;
  Clock::time_point agent_start_;
  bool link_up_down_traps_ = false;
  std::vector<std::unique_ptr<Context>> contexts_;  // [0]: the fabric; then nodes by name
};

}  // namespace ibpulse::exporters::snmp
