#include "ibpulse/collector/sma_info.h"

#include "smp_fields.h"

namespace ibpulse::collector {

using smp::field;
using smp::field64;
using smp::flag;
using smp::u16;
using smp::u8;

SmaNodeInfo sma_node_info(const uint8_t* data) {
  SmaNodeInfo n;
  n.base_version = u8(data, IB_NODE_BASE_VERS_F);
  n.class_version = u8(data, IB_NODE_CLASS_VERS_F);
  n.partition_cap = u16(data, IB_NODE_PARTITION_CAP_F);
  n.device_id = u16(data, IB_NODE_DEVID_F);
  n.revision = field(data, IB_NODE_REVISION_F);
  n.vendor_id = field(data, IB_NODE_VENDORID_F);
  n.port_guid = field64(data, IB_NODE_PORT_GUID_F);
  n.local_port = u8(data, IB_NODE_LOCAL_PORT_F);
  return n;
}

SmaSmInfo sma_sm_info(const uint8_t* data) {
  SmaSmInfo i;
  i.guid = field64(data, IB_SMINFO_GUID_F);
  i.act_count = field(data, IB_SMINFO_ACT_F);
  i.priority = u8(data, IB_SMINFO_PRIO_F);
  i.state = u8(data, IB_SMINFO_STATE_F);
  return i;
}

SmaSwitchInfo sma_switch_info(const uint8_t* data) {
  SmaSwitchInfo s;
  s.linear_fdb_cap = u16(data, IB_SW_LINEAR_FDB_CAP_F);
  s.random_fdb_cap = u16(data, IB_SW_RANDOM_FDB_CAP_F);
  s.multicast_fdb_cap = u16(data, IB_SW_MCAST_FDB_CAP_F);
  s.linear_fdb_top = u16(data, IB_SW_LINEAR_FDB_TOP_F);
  s.default_port = u8(data, IB_SW_DEF_PORT_F);
  s.default_multicast_primary_port = u8(data, IB_SW_DEF_MCAST_PRIM_F);
  s.default_multicast_not_primary_port = u8(data, IB_SW_DEF_MCAST_NOT_PRIM_F);
  s.life_time_value = u8(data, IB_SW_LIFE_TIME_F);
  s.port_state_change = flag(data, IB_SW_STATE_CHANGE_F);
  s.lids_per_port = u16(data, IB_SW_LIDS_PER_PORT_F);
  s.partition_enforcement_cap = u16(data, IB_SW_PARTITION_ENFORCE_CAP_F);
  s.inbound_enforcement_cap = flag(data, IB_SW_PARTITION_ENF_INB_F);
  s.outbound_enforcement_cap = flag(data, IB_SW_PARTITION_ENF_OUTB_F);
  s.filter_raw_inbound_cap = flag(data, IB_SW_FILTER_RAW_INB_F);
  s.filter_raw_outbound_cap = flag(data, IB_SW_FILTER_RAW_OUTB_F);
  s.enhanced_port0 = flag(data, IB_SW_ENHANCED_PORT0_F);
  return s;
}

SmaPortInfo sma_port_info(const uint8_t* data) {
  SmaPortInfo p;
  p.gid_prefix = field64(data, IB_PORT_GID_PREFIX_F);
  p.lid = u16(data, IB_PORT_LID_F);
  p.master_sm_lid = u16(data, IB_PORT_SMLID_F);
  p.capability_mask = field(data, IB_PORT_CAPMASK_F);
  p.m_key_lease_period = u16(data, IB_PORT_MKEY_LEASE_F);
  p.m_key_protect_bits = u8(data, IB_PORT_MKEY_PROT_BITS_F);
  p.lmc = u8(data, IB_PORT_LMC_F);
  p.master_sm_sl = u8(data, IB_PORT_SMSL_F);
  p.init_type = u8(data, IB_PORT_INIT_TYPE_F);
  p.init_type_reply = u8(data, IB_PORT_INIT_TYPE_REPLY_F);
  p.link_down_default_state = u8(data, IB_PORT_LINK_DOWN_DEF_F);
  p.vl_cap = u8(data, IB_PORT_VL_CAP_F);
  p.vl_high_limit = u8(data, IB_PORT_VL_HIGH_LIMIT_F);
  p.vl_arbitration_high_cap = u8(data, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
  p.vl_arbitration_low_cap = u8(data, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
  p.mtu_cap = u8(data, IB_PORT_MTU_CAP_F);
  p.vl_stall_count = u8(data, IB_PORT_VL_STALL_COUNT_F);
  p.hoq_life = u8(data, IB_PORT_HOQ_LIFE_F);
  p.operational_vls = u8(data, IB_PORT_OPER_VLS_F);
  p.partition_enforcement_inbound = flag(data, IB_PORT_PART_EN_INB_F);
  p.partition_enforcement_outbound = flag(data, IB_PORT_PART_EN_OUTB_F);
  p.filter_raw_inbound = flag(data, IB_PORT_FILTER_RAW_INB_F);
  p.filter_raw_outbound = flag(data, IB_PORT_FILTER_RAW_OUTB_F);
  p.m_key_violations = u16(data, IB_PORT_MKEY_VIOL_F);
  p.p_key_violations = u16(data, IB_PORT_PKEY_VIOL_F);
  p.q_key_violations = u16(data, IB_PORT_QKEY_VIOL_F);
  p.guid_cap = u8(data, IB_PORT_GUID_CAP_F);
  p.subnet_timeout = u8(data, IB_PORT_SUBN_TIMEOUT_F);
  p.resp_time_value = u8(data, IB_PORT_RESP_TIME_VAL_F);
  p.local_phys_error_threshold = u8(data, IB_PORT_LOCAL_PHYS_ERR_F);
  p.overrun_error_threshold = u8(data, IB_PORT_OVERRUN_ERR_F);
  return p;
}

}  // namespace ibpulse::collector
