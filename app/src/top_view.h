#pragma once
// What `ibpulse top` draws from one /api/health document (health_view.h): a header with the
// fabric's counts, the worst links (both ends, BERs, flaps, reasons) and the congestion roots
// (peer, victims, utilisation, wait ratio), fitted to the terminal: no line wider than it, no
// more lines than it has. Pure, so tests check frames without a terminal.
//
// Thread safety: pure functions.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ibpulse/exporters/alerts/name_filter.h"

namespace ibpulse::cli {

enum class TopSort { kState, kBer, kFlaps };
TopSort next_sort(TopSort sort);
const char* sort_name(TopSort sort);

struct TopView {
  std::string source;  // the daemon's URL, shown in the header
  TopSort sort = TopSort::kState;
  std::string filter_text;                                // shown; empty: none
  const exporters::alerts::NameFilter* filter = nullptr;  // on either end's name or GUID
  unsigned width = 80, height = 24;
  uint64_t refresh = 0;  // frames drawn so far (shown)
  std::string error;     // the last fetch's failure, shown instead of stale data
};

// The document with its links and roots filtered and sorted as the view says (what
// `--once --json` prints).
nlohmann::json arrange(const nlohmann::json& health, const TopView& view);
// The lines of one frame, without terminal control codes.
std::vector<std::string> render_top(const nlohmann::json& health, const TopView& view);

}  // namespace ibpulse::cli
