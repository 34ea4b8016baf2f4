#pragma once
// Bit error ratios and when one is above spec (docs/health.md).
//
// Bits are the link's data rate after encoding (active lanes x per-lane rate:
// converters::link_bits_per_second) x the time the error counts cover. The spec is judged on
// the 95% Poisson lower bound of the errors: λ_L(k), the rate below which seeing k or more
// errors has at most a 5% chance, is λ_L(0) = 0 and gamma_p_inv(k, 0.05) for k > 0 (1 error:
// 0.0513, 2: 0.355, 3: 0.818). A BER is above spec when λ_L(k) / bits > spec: many errors in
// few bits are, one error in few bits is not.
//
// UFM-style windows judge the errors of a fixed window against a fixed count: NVIDIA's UFM
// isolates an NDR link at 2.88 errors in 12 minutes or 3 in 125 minutes. On a 4X NDR port (400
// Gb/s) those are BERs of 1e-14 (2.88e14 bits) and 1e-15 (3e15 bits), so a window is given as
// (duration, BER) and its count scales with the port's own rate: errors > BER x rate x window.
//
// Thread safety: pure functions.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ibpulse::exporters::alerts {

// λ_L(k) at 95% confidence.
double poisson_lower_bound_95(uint64_t errors);

// Whether `errors` in `bits` prove a BER above `spec` (bits > 0).
bool ber_above_spec(uint64_t errors, double bits, double spec);

// One UFM-style window: at speed `speed` ("NDR", "HDR", ...; empty: every speed), more errors
// than `ber` x the port's bit rate x `window` within `window`.
struct UfmWindow {
  std::string speed;
  std::chrono::milliseconds window{0};
  double ber = 0;
};
// The errors a window allows a port of `bits_per_second`.
double ufm_allowed_errors(const UfmWindow& w, double bits_per_second);

// NVIDIA UFM's NDR windows as (duration, BER) pairs.
std::vector<UfmWindow> default_ufm_windows();

}  // namespace ibpulse::exporters::alerts
