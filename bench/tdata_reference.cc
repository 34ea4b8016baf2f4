#include "tdata_reference.h"

#include <array>
#include <memory>

#include "ibpulse/exporters/snmp/mib_view.h"
// The exporter's private net-snmp headers and value encoding (CMakeLists.txt says why).
#include "net_snmp.h"
#include "varbind_codec.h"

namespace ibpulse::bench {
namespace {

using exporters::snmp::MibView;
using exporters::snmp::Oid;
using exporters::snmp::VarBind;

constexpr uint32_t kColumns = 19;  // ifXTable

// One row: the values ibpulse's view gives for it, taken once.
struct Entry {
  std::array<VarBind, kColumns + 1> columns;
  std::array<bool, kColumns + 1> present{};
};

std::vector<std::unique_ptr<Entry>>& entries() {
  static std::vector<std::unique_ptr<Entry>> e;
  return e;
}

// mib2c's table_tdata handler: the helper has found the row; answer GET by column.
int handle(netsnmp_mib_handler* /*handler*/, netsnmp_handler_registration* /*reginfo*/,
           netsnmp_agent_request_info* info, netsnmp_request_info* requests) {
  if (info->mode != MODE_GET) return SNMP_ERR_NOERROR;
  for (netsnmp_request_info* r = requests; r != nullptr; r = r->next) {
    auto* entry = static_cast<Entry*>(netsnmp_tdata_extract_entry(r));
    netsnmp_table_request_info* table = netsnmp_extract_table_info(r);
    if (entry == nullptr || table == nullptr || table->colnum > kColumns ||
        !entry->present[table->colnum]) {
      netsnmp_set_request_error(info, r, SNMP_NOSUCHINSTANCE);
      continue;
    }
    exporters::snmp::detail::set_value(r->requestvb, entry->columns[table->colnum]);
  }
  return SNMP_ERR_NOERROR;
}

}  // namespace

const Oid& reference_table() {
  static const Oid oid = [] {
    Oid o = exporters::snmp::kIbpulseRoot;
    o.insert(o.end(), {99, 1, 1});
    return o;
  }();
  return oid;
}

void register_tdata_reference(const converters::FabricSnapshot& snapshot) {
  auto shared = std::make_shared<converters::FabricSnapshot>(snapshot);
  const MibView view(shared, {}, MibView::Clock::now(), false);
  netsnmp_tdata* table = netsnmp_tdata_create_table("ibpulse_reference", 0);
  auto* info = static_cast<netsnmp_table_registration_info*>(
      calloc(1, sizeof(netsnmp_table_registration_info)));
  netsnmp_table_helper_add_indexes(info, ASN_INTEGER, 0);
  info->min_column = 1;
  info->max_column = kColumns;
  Oid table_oid = reference_table();
  table_oid.pop_back();  // the table; the helper adds the entry's .1
  std::vector<::oid> root(table_oid.begin(), table_oid.end());
  netsnmp_handler_registration* reg = netsnmp_create_handler_registration(
      "ibpulse_reference", &handle, root.data(), root.size(), HANDLER_CAN_RONLY);
  netsnmp_tdata_register(reg, table, info);
  // The rows, in ifIndex order, with what ibpulse's view says for each column.
  const Oid if_x_entry = {1, 3, 6, 1, 2, 1, 31, 1, 1, 1};
  Oid at = if_x_entry;
  at.push_back(1);  // ifName: one instance per row
  VarBind vb;
  while (view.next("", at, false, MibView::Clock::now(), vb) && vb.name.size() == 12 &&
         vb.name[10] == 1) {
    at = vb.name;
    const uint32_t index = vb.name[11];
    auto entry = std::make_unique<Entry>();
    for (uint32_t c = 1; c <= kColumns; ++c) {
      Oid instance = if_x_entry;
      instance.insert(instance.end(), {c, index});
      entry->present[c] = view.get("", instance, MibView::Clock::now(), entry->columns[c]);
    }
    netsnmp_tdata_row* row = netsnmp_tdata_create_row();
    row->data = entry.get();
    const long value = index;
    // What netsnmp_tdata_row_add_index() expands to, without its C cast.
    snmp_varlist_add_variable(&row->indexes, nullptr, 0, ASN_INTEGER,
                              reinterpret_cast<const u_char*>(&value), sizeof value);
    netsnmp_tdata_add_row(table, row);
    entries().push_back(std::move(entry));
  }
}

}  // namespace ibpulse::bench
