#include "ber.h"

#include <boost/math/special_functions/gamma.hpp>

namespace ibpulse::exporters::alerts {

double poisson_lower_bound_95(uint64_t errors) {
  if (errors == 0) return 0;
  return boost::math::gamma_p_inv(static_cast<double>(errors), 0.05);
}

bool ber_above_spec(uint64_t errors, double bits, double spec) {
  return bits > 0 && poisson_lower_bound_95(errors) / bits > spec;
}

double ufm_allowed_errors(const UfmWindow& w, double bits_per_second) {
  return w.ber * bits_per_second * std::chrono::duration<double>(w.window).count();
}

std::vector<UfmWindow> default_ufm_windows() {
  using std::chrono::minutes;
  return {{"NDR", minutes(12), 1e-14}, {"NDR", minutes(125), 1e-15}};
}

}  // namespace ibpulse::exporters::alerts
