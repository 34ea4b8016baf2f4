#pragma once
// The link health document (/api/health, health_view.h) as a person reads it in a terminal
// (`ibpulse top`): a header with the fabric's counts, the worst links (both ends, BERs, flaps,
// reasons) and the congestion roots (peer, victims, utilisation, wait ratio), fitted to the
// terminal: no line wider than it, no more lines than it has. Beside the JSON views of the same
// document, so that a change to it changes both here. Pure, so tests check frames without a
// terminal.
//
// Thread safety: value types and pure functions.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/exporters/alerts/name_filter.h"

namespace ibpulse::exporters::alerts {

enum class HealthSort { kState, kBer, kFlaps };
HealthSort next_sort(HealthSort sort);
const char* sort_name(HealthSort sort);

struct HealthTextView {
  std::string source;  // the daemon's URL, shown in the header
  HealthSort sort = HealthSort::kState;
  std::string filter_text;                                // shown; empty: none
  const exporters::alerts::NameFilter* filter = nullptr;  // on either end's name or GUID
  unsigned width = 80, height = 24;
  uint64_t refresh = 0;  // frames drawn so far (shown)
  std::string error;     // the last fetch's failure, shown instead of stale data
};

// A /api/health document as a daemon served it; empty until one is parsed.
class HealthDocument {
 public:
  HealthDocument();
  // Errors: not a health document ("is this an ibpulse daemon?"), or the daemon's own refusal
  // of the request ({"error": "..."}, a filter it cannot take).
  static Result<HealthDocument> parse(std::string_view json_text);
  // summary.links: 0 until the daemon has judged the fabric once.
  uint64_t links() const;

 private:
  friend std::string arrange(const HealthDocument& health, const HealthTextView& view);
  friend std::vector<std::string> render_health_text(const HealthDocument& document,
                                                     const HealthTextView& view);
  struct Json;
  std::shared_ptr<const Json> json_;
};

// The document with its links and roots filtered and sorted as the view says, as JSON text
// (what `ibpulse top --once --json` prints).
std::string arrange(const HealthDocument& health, const HealthTextView& view);
// The lines of one frame, without terminal control codes.
std::vector<std::string> render_health_text(const HealthDocument& document,
                                            const HealthTextView& view);

}  // namespace ibpulse::exporters::alerts
