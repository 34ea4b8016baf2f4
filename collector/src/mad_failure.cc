// The names of MAD failures, as logs and the reason label of ibpulse_mads_failed_total print
// them.
#include "ibpulse/collector/mad_engine.h"

namespace ibpulse::collector {

std::string_view to_string(MadFailure failure) {
  switch (failure) {
    case MadFailure::kNone:
      return "none";
    case MadFailure::kTimeout:
      return "timeout";
    case MadFailure::kUnreachable:
      return "unreachable";
    case MadFailure::kStatus:
      return "status";
    case MadFailure::kRedirect:
      return "redirect";
    case MadFailure::kSendError:
      return "send_error";
  }
  return "unknown";
}

}  // namespace ibpulse::collector
