// `ibpulse shard-of`: which collectors own a node, computed as every shard computes it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "ibpulse/base/number.h"
#include "ibpulse/collector/shard.h"

namespace ibpulse::cli {
namespace {

struct ShardOfArgs {
  std::vector<std::string> guids;
  unsigned count = 1;
  unsigned replicas = 1;
  bool json = false;
};

int shard_of(const ShardOfArgs& a) {
  const collector::ShardSpec spec{1, a.count, a.replicas};
  if (auto s = collector::validate(spec); !s) return fail(s.error());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& text : a.guids) {
    auto guid = parse_guid(text);
    if (!guid)
      return fail(
          fmt::format("bad node GUID '{}': write 0x followed by up to 16 hex digits", text));
    const auto owners = collector::shard_owners(*guid, a.count, a.replicas);
    if (a.json) {
      out.push_back({{"node_guid", collector::guid_string(*guid)}, {"shards", owners}});
    } else {
      fmt::print("{} {}\n", collector::guid_string(*guid), fmt::join(owners, " "));
    }
  }
  if (a.json) fmt::print("{}\n", out.dump(2));
  return 0;
}

}  // namespace

void add_shard_of_command(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand(
      "shard-of",
      "Print the shards (1..N) that poll and export each node GUID when shard.count collectors "
      "share the fabric, highest rendezvous weight first: where a manager finds a node's "
      "series and its SNMP context. Prints '<node GUID> <shard> [<shard>...]' per line.");
  auto a = std::make_shared<ShardOfArgs>();
  sub->add_option("guid", a->guids, "Node GUIDs, 0x<hex>")->required();
  sub->add_option("--shard.count", a->count, "Collectors sharing the fabric")->required();
  sub->add_option("--shard.replicas", a->replicas, "Collectors polling each node (default 1)");
  sub->add_flag("--json", a->json, "JSON output");
  sub->callback([a, &action] { action = [a] { return shard_of(*a); }; });
}

}  // namespace ibpulse::cli
