#include "notification.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "octets.h"

namespace ibpulse::exporters::snmp::detail {
namespace {

using alerts::AlertEvent;
using alerts::EventKind;

const Oid kSysUpTime = {1, 3, 6, 1, 2, 1, 1, 3, 0};
const Oid kSnmpTrapOid = {1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0};
const Oid kLinkDown = {1, 3, 6, 1, 6, 3, 1, 1, 5, 3};
const Oid kLinkUp = {1, 3, 6, 1, 6, 3, 1, 1, 5, 4};
constexpr uint32_t kIfIndex = 1, kIfAdminStatus = 7, kIfOperStatus = 8;  // ifEntry columns
constexpr size_t kDisplayStringMax = 64;  // IBPULSE-MIB's DisplayString (SIZE (0..64))

// ibpulseNotifications.n and ibpulseNotificationObjects.n.0.
Oid notification(uint32_t n) {
  Oid o = kIbpulseRoot;
  o.insert(o.end(), {0, n});
  return o;
}
Oid object(uint32_t n) {
  Oid o = kIbpulseRoot;
  o.insert(o.end(), {1, 3, n, 0});
  return o;
}
Oid if_entry(uint32_t column, uint32_t if_index) {
  return {1, 3, 6, 1, 2, 1, 2, 2, 1, column, if_index};
}

VarBind number(Oid name, VarType type, uint64_t value) {
  VarBind vb;
  vb.name = std::move(name);
  vb.type = type;
  vb.number = value;
  return vb;
}

VarBind text(Oid name, std::string_view value) {
  VarBind vb;
  vb.name = std::move(name);
  vb.type = VarType::kOctetString;
  vb.text.assign(value.substr(0, kDisplayStringMax));
  return vb;
}

// IB-SMA-MIB: ibSmaNotificationPrefix.n for InfiniBand trap `trap`, and ibSmaNodeInfo.n.0.
Oid sma_notification(uint16_t trap) {
  const auto* at = std::find(std::begin(alerts::kSmaTraps), std::end(alerts::kSmaTraps), trap);
  Oid o = kIbSmaMib;
  o.insert(o.end(), {2, 0, static_cast<uint32_t>(at - std::begin(alerts::kSmaTraps)) + 1});
  return o;
}
Oid sma_object(uint32_t n) {
  Oid o = kIbSmaMib;
  o.insert(o.end(), {1, 1, n, 0});
  return o;
}

VarBind octets(Oid name, uint64_t value, unsigned bytes) {
  VarBind vb;
  vb.name = std::move(name);
  vb.type = VarType::kOctetString;
  append_big_endian(vb.text, value, bytes);
  return vb;
}

VarBind bytes(Oid name, const collector::Gid& value) {
  VarBind vb;
  vb.name = std::move(name);
  vb.type = VarType::kOctetString;
  vb.text.assign(reinterpret_cast<const char*>(value.data()), value.size());
  return vb;
}

// ibSmaNodeInfo's notification objects (its columns).
enum SmaObject : uint32_t {
  kSystemImageGuid = 6,
  kLid = 14,
  kPortNum = 15,
  kMethod = 16,
  kAttributeId = 17,
  kAttributeModifier = 18,
  kKey = 19,
  kLid2 = 20,
  kServiceLevel = 21,
  kQueuePair1 = 22,
  kQueuePair2 = 23,
  kGid1 = 24,
  kGid2 = 25,
  kCapMask = 26,
  kSwitchLid = 27,
  kDataValid = 28,
};

VarBind unsigned32(SmaObject o, uint64_t value) {
  return number(sma_object(o), VarType::kGauge32, value);
}

// 259's DataValid as the BITS it is: bit n of the Notice's field (lidaddr1(0) .. gidaddr2(7))
// is bit n of the octet string, counted from the most significant bit of its first octet.
VarBind data_valid(uint16_t field) {
  uint8_t octet = 0;
  for (unsigned bit = 0; bit < 8; ++bit)
    if ((field >> bit) & 1) octet |= static_cast<uint8_t>(0x80 >> bit);
  return octets(sma_object(kDataValid), octet, 1);
}

// 257-259: the key, then both ends of the offending packet and its SL (259 also the switch
// and port that dropped it, and which fields hold).
void key_violation(const AlertEvent& e, const collector::SmNotice& n, std::vector<VarBind>& out) {
  out.push_back(octets(sma_object(kKey), n.key, 8));
  out.push_back(unsigned32(kLid, n.lid));
  out.push_back(bytes(sma_object(kGid1), n.gid1));
  out.push_back(unsigned32(kQueuePair1, n.qp1));
  out.push_back(unsigned32(kLid2, n.lid2));
  out.push_back(bytes(sma_object(kGid2), n.gid2));
  out.push_back(unsigned32(kQueuePair2, n.qp2));
  out.push_back(unsigned32(kServiceLevel, n.sl));
  if (e.sma_trap != 259) return;
  out.push_back(unsigned32(kSwitchLid, n.switch_lid));
  out.push_back(unsigned32(kPortNum, n.port));
  out.push_back(data_valid(n.data_valid));
}

// The trap's objects in its OBJECTS order, then IBPULSE-MIB's node GUID and name: a LID alone
// does not name a node for long.
void sma_objects(const AlertEvent& e, std::vector<VarBind>& out) {
  const bool key_trap = e.sma_trap == 257 || e.sma_trap == 258 || e.sma_trap == 259;
  if (key_trap && e.notice) {
    key_violation(e, *e.notice, out);
  } else {
    out.push_back(unsigned32(kLid, e.lid));
  }
  switch (e.sma_trap) {
    case 129:
    case 130:
    case 131:
      out.push_back(unsigned32(kPortNum, e.port.port));
      break;
    case 144:
      out.push_back(octets(sma_object(kCapMask), e.capability_mask, 4));
      break;
    case 145:
      out.push_back(octets(sma_object(kSystemImageGuid), e.system_image_guid, 8));
      break;
    case 256:
      if (!e.notice) break;
      out.push_back(octets(sma_object(kKey), e.notice->key, 8));
      out.push_back(unsigned32(kMethod, e.notice->method));
      out.push_back(unsigned32(kAttributeId, e.notice->attribute_id));
      out.push_back(unsigned32(kAttributeModifier, e.notice->attribute_modifier));
      break;
    default:
      break;
  }
  out.push_back(text(object(1), fmt::format("0x{:016x}", e.port.node_guid)));
  out.push_back(text(object(2), e.node_name));
}

// ibpulseSmMasterChanged: the subnet, the master now and before, then the node's GUID and name.
void sm_master_objects(const AlertEvent& e, std::vector<VarBind>& out) {
  out.push_back(octets(object(12), e.subnet_prefix, 8));
  out.push_back(octets(object(13), e.sm_guid, 8));
  out.push_back(number(object(14), VarType::kGauge32, e.lid));
  out.push_back(number(object(15), VarType::kGauge32, e.sm_priority));
  out.push_back(number(object(16), VarType::kInteger, e.sm_state));
  out.push_back(octets(object(17), e.previous_sm_guid, 8));
  out.push_back(text(object(1), fmt::format("0x{:016x}", e.port.node_guid)));
  out.push_back(text(object(2), e.node_name));
}

void threshold_objects(const AlertEvent& e, std::vector<VarBind>& out) {
  out.push_back(number(if_entry(kIfIndex, e.if_index), VarType::kInteger, e.if_index));
  out.push_back(text(object(1), fmt::format("0x{:016x}", e.port.node_guid)));
  out.push_back(text(object(2), e.node_name));
  out.push_back(number(object(3), VarType::kGauge32, e.port.port));  // IbPort: Unsigned32
  out.push_back(text(object(4), e.rule));
  out.push_back(text(object(5), e.counter));
  out.push_back(number(object(6), VarType::kInteger, static_cast<uint64_t>(e.condition)));
  out.push_back(number(object(7), VarType::kCounter64, thousandths(e.value)));
  out.push_back(number(object(8), VarType::kCounter64, thousandths(e.threshold)));
  out.push_back(number(object(9), VarType::kGauge32, e.window_seconds));
  out.push_back(number(object(10), VarType::kInteger, static_cast<uint64_t>(e.severity)));
}

}  // namespace

uint64_t thousandths(double value) {
  const double scaled = std::round(value * 1000.0);
  if (!(scaled > 0)) return 0;  // negative, zero or NaN
  if (scaled >= 18446744073709551615.0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(scaled);
}

std::vector<VarBind> notification_varbinds(const AlertEvent& event, uint64_t uptime_ticks) {
  std::vector<VarBind> out;
  out.push_back(number(kSysUpTime, VarType::kTimeTicks, uptime_ticks & 0xFFFFFFFFu));
  VarBind trap_oid;
  trap_oid.name = kSnmpTrapOid;
  trap_oid.type = VarType::kObjectId;
  switch (event.kind) {
    case EventKind::kRaised:
    case EventKind::kCleared:
      trap_oid.oid_value = notification(event.kind == EventKind::kRaised ? 1 : 2);
      out.push_back(std::move(trap_oid));
      threshold_objects(event, out);
      break;
    case EventKind::kLinkDown:
    case EventKind::kLinkUp:
      trap_oid.oid_value = event.kind == EventKind::kLinkDown ? kLinkDown : kLinkUp;
      out.push_back(std::move(trap_oid));
      out.push_back(number(if_entry(kIfIndex, event.if_index), VarType::kInteger, event.if_index));
      out.push_back(
          number(if_entry(kIfAdminStatus, event.if_index), VarType::kInteger, event.admin_status));
      out.push_back(
          number(if_entry(kIfOperStatus, event.if_index), VarType::kInteger, event.oper_status));
      break;
    case EventKind::kSma:
      trap_oid.oid_value = sma_notification(event.sma_trap);
      out.push_back(std::move(trap_oid));
      sma_objects(event, out);
      break;
    case EventKind::kSmMaster:
      trap_oid.oid_value = notification(4);
      out.push_back(std::move(trap_oid));
      sm_master_objects(event, out);
      break;
    case EventKind::kRateLimited:
      trap_oid.oid_value = notification(3);
      out.push_back(std::move(trap_oid));
      out.push_back(number(object(11), VarType::kGauge32, event.suppressed));
      out.push_back(number(object(9), VarType::kGauge32, event.window_seconds));
      break;
  }
  return out;
}

}  // namespace ibpulse::exporters::snmp::detail
