#include "ibpulse/exporters/snmp/mib_view.h"

#include <fmt/format.h>

#include <algorithm>

#include "ibpulse/base/check.h"
#include "mib_objects.h"

namespace ibpulse::exporters::snmp {
namespace {

using mib::Object;
using mib::Row;
using mib::Rows;
using mib::VlRow;

std::string guid_context(uint64_t guid) {
  return fmt::format("0x{:016x}", guid);
}

// The VL rows of `rows` (already in index order): VLs a PortSamples sample covered.
std::vector<VlRow> vl_rows_of(const converters::FabricSnapshot& s, const std::vector<Row>& rows) {
  std::vector<VlRow> out;
  for (const Row& r : rows) {
    const auto& traffic = s.ports[r.port].vl_traffic;
    if (!traffic) continue;
    for (uint32_t vl = 0; vl < converters::kVirtualLanes; ++vl) {
      if (traffic->has_vl(vl)) out.push_back(VlRow{r.index, vl, r.port});
    }
  }
  return out;
}

// A node's ibSmaPKeyTable: the tables of its ports (those of its context's rows) and of a
// switch's port 0, which IB-SMA-MIB numbers 255.
std::vector<mib::PKeyRow> pkey_rows_of(const converters::FabricSnapshot& s,
                                       const MibView::Context& c) {
  constexpr uint32_t kManagementPort = 255;
  std::vector<mib::PKeyRow> out;
  if (!s.partitions) return out;
  const auto add = [&](uint8_t port, uint32_t index) {
    const collector::PortPartitions* table = s.partitions->find({c.node_guid, port});
    if (table == nullptr) return;
    for (const collector::PKeyEntry& e : table->entries)
      out.push_back({index, e.index, e.pkey});
  };
  for (const Row& r : c.rows)
    add(static_cast<uint8_t>(r.index), r.index);
  add(0, kManagementPort);
  return out;
}

// The fabric's context: every numbered port (switch port 0 has no ifIndex), by ifIndex.
std::unique_ptr<MibView::Context> fabric_context(const converters::FabricSnapshot& s,
                                                 const std::vector<Row>& all) {
  auto c = std::make_unique<MibView::Context>();
  for (const Row& r : all) {
    if (s.ports[r.port].if_index != 0)
      c->rows.push_back(Row{s.ports[r.port].if_index, r.port, r.link, r.node});
  }
  std::sort(c->rows.begin(), c->rows.end(),
            [](const Row& a, const Row& b) { return a.index < b.index; });
  c->vl_rows = vl_rows_of(s, c->rows);
  c->sm_nodes = mib::sm_node_rows(s, false);
  c->sm_switches = mib::sm_node_rows(s, true);
  c->sm_infos = mib::sm_info_rows(s);
  return c;
}

// One context per node: its ports by number (snapshot rows are sorted by node, then port).
void add_node_contexts(const converters::FabricSnapshot& s, const std::vector<Row>& all,
                       std::vector<std::unique_ptr<MibView::Context>>& out) {
  for (size_t i = 0; i < all.size();) {
    const uint64_t guid = s.ports[all[i].port].key.node_guid;
    auto c = std::make_unique<MibView::Context>();
    c->name = guid_context(guid);
    c->node_guid = guid;
    for (; i < all.size() && s.ports[all[i].port].key.node_guid == guid; ++i) {
      const uint8_t number = s.ports[all[i].port].key.port;
      if (number != 0) c->rows.push_back(Row{number, all[i].port, all[i].link, all[i].node});
    }
    c->vl_rows = vl_rows_of(s, c->rows);
    c->pkey_rows = pkey_rows_of(s, *c);
    out.push_back(std::move(c));
  }
}

// Every snapshot port with its topology port and node (null when it left discovery).
std::vector<Row> all_rows(const converters::FabricSnapshot& s) {
  std::vector<Row> rows;
  rows.reserve(s.ports.size());
  const collector::Topology* t = s.topology.get();
  size_t tp = 0;
  for (size_t i = 0; i < s.ports.size(); ++i) {
    Row r;
    r.port = static_cast<uint32_t>(i);
    if (t != nullptr) {
      const collector::PortKey key = s.ports[i].key;
      while (tp < t->ports.size() && t->ports[tp].key < key)
        ++tp;
      if (tp < t->ports.size() && t->ports[tp].key == key) r.link = &t->ports[tp];
      r.node = t->find_node(key.node_guid);
    }
    rows.push_back(r);
  }
  return rows;
}

// ibpulseSm's index: a subnet prefix and a GUID, two fixed-size OCTET STRINGs (no length
// subidentifier), an octet each.
mib::Index prefix_and_guid(uint64_t prefix, uint64_t guid) {
  mib::Index index;
  for (unsigned b = 0; b < 8; ++b) {
    index.subids[b] = static_cast<uint32_t>((prefix >> (56 - 8 * b)) & 0xFF);
    index.subids[8 + b] = static_cast<uint32_t>((guid >> (56 - 8 * b)) & 0xFF);
  }
  index.size = 16;
  return index;
}

mib::Index row_index(Rows kind, const MibView::Context& c, size_t i) {
  mib::Index index;
  switch (kind) {
    case Rows::kScalar:
      index.size = 1;  // .0
      break;
    case Rows::kInterfaces:
      index.subids[0] = c.rows[i].index;
      index.size = 1;
      break;
    case Rows::kVirtualLanes:
      index.subids[0] = c.vl_rows[i].index;
      index.subids[1] = c.vl_rows[i].vl;
      index.size = 2;
      break;
    case Rows::kPKeys:
      index.subids[0] = c.pkey_rows[i].port_index;
      index.subids[1] = c.pkey_rows[i].entry;
      index.size = 2;
      break;
    case Rows::kSmNodes:
      return prefix_and_guid(c.sm_nodes[i].subnet_prefix, c.sm_nodes[i].node->guid);
    case Rows::kSmSwitches:
      return prefix_and_guid(c.sm_switches[i].subnet_prefix, c.sm_switches[i].node->guid);
    case Rows::kSmInfos:
      return prefix_and_guid(c.sm_infos[i].subnet_prefix, c.sm_infos[i].sm->info.guid);
  }
  return index;
}

size_t row_count(Rows kind, const MibView::Context& c) {
  switch (kind) {
    case Rows::kScalar:
      return 1;
    case Rows::kInterfaces:
      return c.rows.size();
    case Rows::kVirtualLanes:
      return c.vl_rows.size();
    case Rows::kPKeys:
      return c.pkey_rows.size();
    case Rows::kSmNodes:
      return c.sm_nodes.size();
    case Rows::kSmSwitches:
      return c.sm_switches.size();
    case Rows::kSmInfos:
      return c.sm_infos.size();
  }
  return 0;
}

bool less(std::span<const uint32_t> a, std::span<const uint32_t> b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

bool starts_with(std::span<const uint32_t> oid, const Oid& prefix) {
  return oid.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), oid.begin());
}

// The first instance of `object` at or after `rel` (the request OID below the entry; empty: the
// object's first), skipping instances a row does not have.
bool next_in_object(const Object& object, const mib::Reader& r, std::span<const uint32_t> rel,
                    bool inclusive, VarBind& out) {
  const size_t rows = row_count(object.rows, r.context);
  auto column =
      std::lower_bound(object.columns.begin(), object.columns.end(), rel.empty() ? 0u : rel[0]);
  // Within the request's own column, only rows after its index; in later columns, every row.
  bool search_rows = !rel.empty() && column != object.columns.end() && *column == rel[0];
  for (; column != object.columns.end(); ++column) {
    size_t row = 0;
    if (search_rows) {
      search_rows = false;
      // Rows after the request's index: binary search over the sorted rows.
      const auto after = rel.subspan(1);
      size_t lo = 0;
      size_t hi = rows;
      while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const auto index = row_index(object.rows, r.context, mid);
        const bool before =
            inclusive ? less(index.span(), after) : !less(after, index.span());  // index <= after
        if (before) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      row = lo;
    }
    for (; row < rows; ++row) {
      if (!object.value(r, row, *column, out)) continue;
      const auto index = row_index(object.rows, r.context, row);
      out.name = object.entry;
      out.name.push_back(*column);
      out.name.insert(out.name.end(), index.span().begin(), index.span().end());
      return true;
    }
  }
  return false;
}

}  // namespace

MibView::MibView(std::shared_ptr<const converters::FabricSnapshot> snapshot, SystemInfo system,
                 Clock::time_point agent_start, bool node_contexts, bool link_up_down_traps,
                 std::shared_ptr<const alerts::HealthSnapshot> health)
    : snapshot_(std::move(snapshot)),
      health_(std::move(health)),
      system_(std::move(system)),
      agent_start_(agent_start),
      link_up_down_traps_(link_up_down_traps) {
  IBPULSE_CHECK(snapshot_ != nullptr);
  const std::vector<Row> all = all_rows(*snapshot_);
  contexts_.push_back(fabric_context(*snapshot_, all));
  if (node_contexts) add_node_contexts(*snapshot_, all, contexts_);
  // Node contexts are in GUID order, which is their names' order ("0x" + fixed-width hex).
}

MibView::~MibView() = default;

const MibView::Context* MibView::find_context(std::string_view name) const {
  if (name.empty()) return contexts_.front().get();
  auto it = std::lower_bound(contexts_.begin() + 1, contexts_.end(), name,
                             [](const auto& c, std::string_view n) { return c->name < n; });
  return it != contexts_.end() && (*it)->name == name ? it->get() : nullptr;
}

bool MibView::has_context(std::string_view context) const {
  return find_context(context) != nullptr;
}

std::vector<std::string> MibView::node_contexts() const {
  std::vector<std::string> names;
  for (size_t i = 1; i < contexts_.size(); ++i)
    names.push_back(contexts_[i]->name);
  return names;
}

bool MibView::next(std::string_view context, std::span<const uint32_t> oid, bool inclusive,
                   Clock::time_point now, VarBind& out) const {
  const Context* c = find_context(context);
  if (c == nullptr) return false;
  const mib::Reader reader{*this, *c, system_, agent_start_, now};
  for (const Object& object : mib::objects()) {
    std::span<const uint32_t> rel;
    if (starts_with(oid, object.entry)) {
      rel = oid.subspan(object.entry.size());
    } else if (less(object.entry, oid)) {
      continue;  // the object lies before the request
    }
    if (next_in_object(object, reader, rel, inclusive && !rel.empty(), out)) return true;
  }
  return false;
}

bool MibView::get(std::string_view context, std::span<const uint32_t> oid, Clock::time_point now,
                  VarBind& out) const {
  if (!next(context, oid, true, now, out)) return false;
  return std::equal(out.name.begin(), out.name.end(), oid.begin(), oid.end());
}

}  // namespace ibpulse::exporters::snmp
